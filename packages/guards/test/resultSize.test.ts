import 'reflect-metadata';
import { DefinitionError, McpServer, metadataStore, Prompt, Resource, Tool } from '@typemcp/core';
import type { Plugin } from '@typemcp/core';
import { createTestClient, McpRequestError } from '@typemcp/testing';
import type { TestClient } from '@typemcp/testing';
import { MaxResultSize, resultSizeLimit, truncationMarker } from '@typemcp/guards';
import type { ResultSizeOptions } from '@typemcp/guards';
import { jsonBytesBound } from '../src/resultSize/measure';

/** What the tools answer, set per test. */
let answer: Record<string, unknown>;

function declareProviders() {
  class Big {
    @Tool({ description: 'Answers what the test set' })
    big(): Record<string, unknown> {
      return answer;
    }

    @Tool({ description: 'Limited by its decorator' })
    @MaxResultSize(120)
    declared(): string {
      return 'x'.repeat(200);
    }

    @Tool({ description: 'Truncated by its decorator' })
    @MaxResultSize(120, { truncate: true })
    cut(): string {
      return 'y'.repeat(200);
    }

    @Tool({ description: 'Answers what the test set, later' })
    async later(): Promise<Record<string, unknown>> {
      await new Promise((resolve) => setTimeout(resolve, 1));
      return answer;
    }

    @Tool({ description: 'Small' })
    small(): string {
      return 'ok';
    }

    @Resource({ uri: 'mem://big', mimeType: 'text/plain' })
    doc(): string {
      return 'z'.repeat(500);
    }

    @Prompt({ description: 'Long' })
    long(): string {
      return 'p'.repeat(500);
    }
  }
  return { Big };
}

let Big: ReturnType<typeof declareProviders>['Big'];
const clients: TestClient[] = [];
const servers: McpServer[] = [];
beforeEach(() => {
  metadataStore.clear();
  ({ Big } = declareProviders());
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function connect(options: ResultSizeOptions) {
  const server = new McpServer({ name: 'sizes', version: '1.0.0', providers: [Big] }).plugin(resultSizeLimit, options);
  servers.push(server);
  const client = await createTestClient(server);
  clients.push(client);
  return client;
}

const bytesOf = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');
/** The result as the tool gave it: what the client receives, without what the era adds. */
const asSent = (result: Record<string, unknown>) => {
  const { _meta: _ignored, ...rest } = result;
  return rest;
};

/** An interceptor added first (outermost): how each `tools/call` came back from the rest, `sync`, `async` (a promise) or `threw` at once. */
function probe(seen: string[], around?: (next: () => unknown) => unknown): Plugin {
  return {
    name: 'probe',
    register: (host) =>
      host.intercept((ctx, next) => {
        if (ctx.method !== 'tools/call') return next();
        let result: unknown;
        try {
          result = around ? around(next) : next();
        } catch (error) {
          seen.push('threw');
          throw error;
        }
        seen.push(result instanceof Promise ? 'async' : 'sync');
        return result;
      }),
  };
}

describe('resultSizeLimit', () => {
  it('answers a tool error naming the tool, the size and the limit when a tool result is over its limit', async () => {
    answer = { content: [{ type: 'text', text: 'a'.repeat(300) }] };
    const size = bytesOf(answer);
    const client = await connect({ tools: { big: { maxBytes: 100 } } });
    const result = await client.callTool('big');
    expect(result).toEqual({ content: [{ type: 'text', text: `The result of tool "big" is ${size} bytes, over the limit of 100 bytes` }], isError: true });
    expect(await client.callTool('small')).toMatchObject({ content: [{ type: 'text', text: 'ok' }] });
  });

  it('lets a result of exactly the limit through, and refuses one byte more', async () => {
    answer = { content: [{ type: 'text', text: 'é'.repeat(50) }] };
    const size = bytesOf(answer);
    let client = await connect({ tools: { big: { maxBytes: size } } });
    expect(asSent(await client.callTool('big'))).toEqual(answer);
    client = await connect({ tools: { big: { maxBytes: size - 1 } } });
    expect((await client.callTool('big')).isError).toBe(true);
  });

  it('truncates text content at a code point to the limit exactly, keeping structuredContent and the items before', async () => {
    // Two-byte, three-byte and four-byte characters, and characters JSON escapes.
    const text = 'aé€😀"\\\n'.repeat(40);
    answer = { content: [{ type: 'text', text: 'first' }, { type: 'text', text }, { type: 'text', text: 'dropped' }], structuredContent: { n: 1 } };
    const size = bytesOf(answer);
    for (const limit of [200, 201, 202, 203, 204, 250]) {
      const client = await connect({ tools: { big: { maxBytes: limit, truncate: true } } });
      const result = asSent(await client.callTool('big')) as { content: Array<{ type: string; text: string }>; structuredContent: unknown };
      expect(bytesOf(result)).toBeLessThanOrEqual(limit);
      expect(result.structuredContent).toEqual({ n: 1 });
      expect(result.content).toHaveLength(2);
      expect(result.content[0]).toEqual({ type: 'text', text: 'first' });
      const marker = `\n${truncationMarker(size, limit)}`;
      const cut = result.content[1].text;
      expect(cut.endsWith(marker)).toBe(true);
      const kept = cut.slice(0, -marker.length);
      expect(text.startsWith(kept)).toBe(true);
      // Cut at a code point: no half of a surrogate pair is left at the end.
      expect(/[\ud800-\udbff]$/.test(kept)).toBe(false);
      // The longest prefix that fits: one more code point would go over.
      const next = [...text.slice(kept.length)][0];
      const longer = { ...result, content: [result.content[0], { type: 'text', text: kept + next + marker }] };
      expect(bytesOf(longer)).toBeGreaterThan(limit);
    }
  });

  it('drops an item that cannot be cut and ends with the marker as a text item of its own', async () => {
    answer = { content: [{ type: 'text', text: 'kept' }, { type: 'image', data: 'A'.repeat(400), mimeType: 'image/png' }, { type: 'text', text: 'later' }] };
    const size = bytesOf(answer);
    const client = await connect({ maxBytes: 150, truncate: true });
    const result = asSent(await client.callTool('big'));
    expect(result).toEqual({ content: [{ type: 'text', text: 'kept' }, { type: 'text', text: truncationMarker(size, 150) }] });
    expect(bytesOf(result)).toBeLessThanOrEqual(150);
  });

  it('answers the tool error when structuredContent alone is over the limit, even with truncate', async () => {
    answer = { content: [{ type: 'text', text: 'short' }], structuredContent: { blob: 'b'.repeat(300) } };
    const client = await connect({ tools: { big: { maxBytes: 200, truncate: true } } });
    const result = await client.callTool('big');
    expect(result.isError).toBe(true);
    expect(result.content[0].text).toContain('over the limit of 200 bytes');
  });

  it('applies @MaxResultSize, and options for the same tool win over it', async () => {
    let client = await connect({});
    expect((await client.callTool('declared')).content[0].text).toMatch(/^The result of tool "declared" is \d+ bytes, over the limit of 120 bytes$/);
    const cut = asSent(await client.callTool('cut'));
    expect(bytesOf(cut)).toBeLessThanOrEqual(120);
    expect((cut as { content: Array<{ text: string }> }).content[0].text).toMatch(/^y+\n…\[truncated: the result was \d+ bytes, the limit is 120\]$/);

    client = await connect({ tools: { declared: { maxBytes: 10_000 } } });
    expect((await client.callTool('declared')).content[0].text).toBe('x'.repeat(200));
  });

  it('answers a JSON-RPC error for a resource or prompt over its limit, and nothing for one within it', async () => {
    const client = await connect({ resources: { 'mem://big': { maxBytes: 100 } }, prompts: { long: { maxBytes: 100 } } });
    const read = client.readResource('mem://big');
    await expect(read).rejects.toBeInstanceOf(McpRequestError);
    await expect(read).rejects.toMatchObject({ code: -32603, data: { limit: 100 } });
    await expect(read).rejects.toThrow(/resource "mem:\/\/big" is \d+ bytes, over the limit of 100 bytes/);
    await expect(client.getPrompt('long')).rejects.toMatchObject({ code: -32603, message: expect.stringMatching(/prompt "long" is \d+ bytes/) });

    const roomy = await connect({ maxBytes: 10_000 });
    expect((await roomy.readResource('mem://big')).contents[0].text).toBe('z'.repeat(500));
  });

  it('measures a synchronous result synchronously, and a promised one once it settles', async () => {
    const seen: string[] = [];
    const server = new McpServer({ name: 'sizes', version: '1.0.0', providers: [Big] }).plugin(probe(seen)).plugin(resultSizeLimit, { maxBytes: 100 });
    servers.push(server);
    const client = await createTestClient(server);
    clients.push(client);
    answer = { content: [{ type: 'text', text: 'small' }] };
    expect(asSent(await client.callTool('big'))).toEqual(answer);
    expect(asSent(await client.callTool('later'))).toEqual(answer);
    answer = { content: [{ type: 'text', text: 'é'.repeat(60) }] };
    const over = `is ${bytesOf(answer)} bytes, over the limit of 100 bytes`;
    expect((await client.callTool('big')).content).toEqual([{ type: 'text', text: `The result of tool "big" ${over}` }]);
    expect((await client.callTool('later')).content).toEqual([{ type: 'text', text: `The result of tool "later" ${over}` }]);
    expect(seen).toEqual(['sync', 'async', 'sync', 'async']);
  });

  it('checks its options when added, naming the option', () => {
    const server = () => new McpServer({ name: 's', version: '1.0.0', providers: [Big] });
    expect(() => server().plugin(resultSizeLimit, { maxBytes: 0 })).toThrow('resultSizeLimit: maxBytes must be a positive whole number of bytes, not 0');
    expect(() => server().plugin(resultSizeLimit, { tools: { big: { maxBytes: 1.5 } } })).toThrow('resultSizeLimit: tools["big"].maxBytes must be a positive whole number');
    expect(() => server().plugin(resultSizeLimit, { resources: { 'mem://big': { maxBytes: 10, truncate: true } } })).toThrow(DefinitionError);
    expect(() => server().plugin(resultSizeLimit, { maxbytes: 10 } as never)).toThrow('resultSizeLimit: unknown option "maxbytes"');
    expect(() => MaxResultSize(-1)).toThrow('@MaxResultSize(maxBytes) must be a positive whole number of bytes, not -1');
  });
});

describe('jsonBytesBound', () => {
  const values: unknown[] = [
    { content: [{ type: 'text', text: 'hello' }] },
    { content: [{ type: 'text', text: '\u0000\u001f"\\\n\t é 中 😀 \ud800 \udc00' }], structuredContent: { n: -1.2345678901234567e-300, big: Number.MAX_VALUE, nan: Number.NaN, yes: true, none: null } },
    [undefined, () => 1, Symbol('s'), [], {}, [[[['deep']]]]],
    { skipped: undefined, fn: () => 1, 'kéy "quoted"': 'v', nested: { a: [1, 2, 3], b: { c: 'ü'.repeat(50) } } },
    Object.assign(Object.create(null) as object, { bare: 'object' }),
  ];

  it('is at least the exact UTF-8 bytes of the JSON of plain data', () => {
    for (const value of values) {
      const exact = Buffer.byteLength(JSON.stringify(value), 'utf8');
      expect(jsonBytesBound(value, Number.MAX_SAFE_INTEGER)).toBeGreaterThanOrEqual(exact);
    }
  });

  it('stops past its budget, answering a number above it', () => {
    const value = { content: Array.from({ length: 1000 }, (_, i) => ({ type: 'text', text: `item ${i}` })) };
    const bound = jsonBytesBound(value, 500);
    expect(bound).toBeGreaterThan(500);
    expect(bound).toBeLessThan(jsonBytesBound(value, Number.MAX_SAFE_INTEGER));
  });

  it('cannot tell (NaN) for what is not plain data: toJSON, class instances, bigints, deep nesting', () => {
    expect(jsonBytesBound({ at: new Date(0) }, 1e9)).toBeNaN();
    expect(jsonBytesBound({ own: { toJSON: () => 'x'.repeat(1e6) } }, 1e9)).toBeNaN();
    expect(jsonBytesBound({ map: new Map() }, 1e9)).toBeNaN();
    expect(jsonBytesBound({ n: 10n }, 1e9)).toBeNaN();
    let deep: unknown = 'leaf';
    for (let i = 0; i < 100; i++) deep = [deep];
    expect(jsonBytesBound(deep, 1e9)).toBeNaN();
  });
});
