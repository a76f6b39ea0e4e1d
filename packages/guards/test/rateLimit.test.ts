import 'reflect-metadata';
import { DefinitionError, McpServer, metadataStore, Prompt, Resource, Tool } from '@typemcp/core';
import type { Plugin, Principal } from '@typemcp/core';
import { createTestClient, McpRequestError } from '@typemcp/testing';
import type { TestClient } from '@typemcp/testing';
import { MemoryRateLimitStore, RateLimit, rateLimit } from '@typemcp/guards';
import type { RateDecision, RateLimitOptions, RateLimitStore, RateRule } from '@typemcp/guards';

/** How many times each tool ran: a refused request must not reach it. */
let runs: Record<string, number>;
const ran = (name: string) => (runs[name] = (runs[name] ?? 0) + 1);

function declareProviders() {
  class Catalogue {
    @Tool({ description: 'Searches' })
    search(): string {
      ran('search');
      return 'found';
    }

    @Tool({ description: 'Searches more' })
    lookup(): string {
      ran('lookup');
      return 'looked up';
    }

    @Tool({ description: 'Free' })
    free(): string {
      ran('free');
      return 'free';
    }

    @Tool({ description: 'Limited by its decorator' })
    @RateLimit({ limit: 2, windowMs: 60_000 })
    declared(): string {
      ran('declared');
      return 'declared';
    }

    @Tool({ description: 'One of a declared group' })
    @RateLimit({ limit: 3, windowMs: 60_000, group: 'exports' })
    exportCsv(): string {
      ran('exportCsv');
      return 'csv';
    }

    @Tool({ description: 'The other of a declared group' })
    @RateLimit({ limit: 3, windowMs: 60_000, group: 'exports' })
    exportPdf(): string {
      ran('exportPdf');
      return 'pdf';
    }

    @Resource({ uri: 'docs://pages/{id}', mimeType: 'text/plain' })
    page(vars: { id: string }): string {
      ran('page');
      return `page ${vars.id}`;
    }

    @Resource('docs://readme')
    readme(): string {
      ran('readme');
      return 'readme';
    }

    @Prompt({ description: 'Greets' })
    greet(): string {
      ran('greet');
      return 'hello';
    }
  }
  return { Catalogue };
}

let Catalogue: ReturnType<typeof declareProviders>['Catalogue'];
const clients: TestClient[] = [];
const servers: McpServer[] = [];
let reported: Array<[string, unknown]>;

beforeEach(() => {
  metadataStore.clear();
  ({ Catalogue } = declareProviders());
  runs = {};
  reported = [];
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

function serve(options: RateLimitOptions): McpServer {
  const server = new McpServer({ name: 'limited', version: '1.0.0', providers: [Catalogue], onError: (what, error) => reported.push([what, error]) });
  server.plugin(rateLimit, options);
  servers.push(server);
  return server;
}

async function connect(server: McpServer, subject?: string): Promise<TestClient> {
  const principal: Principal | undefined = subject === undefined ? undefined : { subject, scopes: [], claims: {} };
  const client = await createTestClient(server, principal === undefined ? {} : { principal });
  clients.push(client);
  return client;
}

/** The JSON-RPC error a request failed with: its code, its message as the server wrote it, its data. */
async function refusal(request: Promise<unknown>): Promise<{ code: number; message: string; data: unknown }> {
  const error = await request.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(McpRequestError);
  const { code, message, data } = error as McpRequestError;
  return { code, message: message.replace(/^\S+ failed with -?\d+: /, ''), data };
}

const textOf = (result: { content: Array<{ type: string; text?: string }> }) => result.content[0].text;

describe('the rateLimit plugin, per item', () => {
  it('allows limit calls of a tool, then refuses the next before it runs with -32023 and when to retry', async () => {
    const client = await connect(serve({ tools: { search: { limit: 3, windowMs: 60_000 } } }));
    for (let i = 0; i < 3; i++) expect(textOf(await client.callTool('search'))).toBe('found');
    const error = await refusal(client.callTool('search'));
    expect(error.code).toBe(-32023);
    expect(error.message).toMatch(/Rate limit: tool "search" allows 3 calls per 60 s per caller; retry in (59|60) s$/);
    const data = error.data as { retryAfterMs: number };
    expect(Object.keys(data)).toEqual(['retryAfterMs']);
    expect(data.retryAfterMs).toBeGreaterThan(55_000);
    expect(data.retryAfterMs).toBeLessThanOrEqual(60_000);
    expect(runs.search).toBe(3);
    // Other tools are not limited.
    for (let i = 0; i < 5; i++) expect(textOf(await client.callTool('free'))).toBe('free');
  });

  it('says when to retry exactly, and allows again once the oldest call left the window', async () => {
    const clock = { t: 0 };
    const store = new MemoryRateLimitStore({ now: () => clock.t });
    const client = await connect(serve({ tools: { search: { limit: 2, windowMs: 10_000 } }, store }));
    await client.callTool('search');
    clock.t = 4000;
    await client.callTool('search');
    clock.t = 7500;
    expect((await refusal(client.callTool('search'))).data).toEqual({ retryAfterMs: 2500 });
    clock.t = 10_000;
    expect(textOf(await client.callTool('search'))).toBe('found');
    expect((await refusal(client.callTool('search'))).data).toEqual({ retryAfterMs: 4000 });
  });

  it('counts a token bucket: a burst of limit, then one call per windowMs / limit', async () => {
    const clock = { t: 0 };
    const store = new MemoryRateLimitStore({ now: () => clock.t });
    const client = await connect(serve({ tools: { search: { limit: 4, windowMs: 60_000, algorithm: 'token-bucket' } }, store }));
    for (let i = 0; i < 4; i++) await client.callTool('search');
    const error = await refusal(client.callTool('search'));
    expect(error.data).toEqual({ retryAfterMs: 15_000 });
    expect(error.message).toBe('Rate limit: tool "search" allows 4 calls per 60 s per caller; retry in 15 s');
    clock.t = 15_000;
    await client.callTool('search');
    await refusal(client.callTool('search'));
  });

  it('tells the quota only when asked (quota: true)', async () => {
    const client = await connect(serve({ tools: { search: { limit: 1, windowMs: 1000 } }, quota: true }));
    await client.callTool('search');
    const error = await refusal(client.callTool('search'));
    expect(error.data).toEqual({ retryAfterMs: expect.any(Number), limit: 1, remaining: 0 });
  });

  it('counts each caller apart by default, and all callers together with per: "server"', async () => {
    const perCaller = serve({ tools: { search: { limit: 2, windowMs: 60_000 } } });
    const [ann, bob] = [await connect(perCaller, 'ann'), await connect(perCaller, 'bob')];
    await ann.callTool('search');
    await ann.callTool('search');
    await refusal(ann.callTool('search'));
    await bob.callTool('search');
    await bob.callTool('search');
    await refusal(bob.callTool('search'));

    const perServer = serve({ tools: { search: { limit: 2, windowMs: 60_000, per: 'server' } } });
    const [cid, dee] = [await connect(perServer, 'cid'), await connect(perServer, 'dee')];
    await cid.callTool('search');
    await dee.callTool('search');
    const error = await refusal(cid.callTool('search'));
    expect(error.message).toMatch(/^Rate limit: tool "search" allows 2 calls per 60 s across all callers; retry in \d+ s$/);
    await refusal(dee.callTool('search'));
  });

  it('counts items of one group together (options and decorators alike)', async () => {
    const client = await connect(
      serve({
        tools: { search: { limit: 3, windowMs: 60_000, group: 'queries' }, lookup: { limit: 3, windowMs: 60_000, group: 'queries' } },
      }),
    );
    await client.callTool('search');
    await client.callTool('lookup');
    await client.callTool('search');
    const error = await refusal(client.callTool('lookup'));
    expect(error.message).toMatch(/^Rate limit: group "queries" allows 3 requests per 60 s per caller/);
    await refusal(client.callTool('search'));

    await client.callTool('exportCsv');
    await client.callTool('exportPdf');
    await client.callTool('exportPdf');
    await refusal(client.callTool('exportCsv'));
    expect(runs).toEqual({ search: 2, lookup: 1, exportCsv: 1, exportPdf: 2 });
  });

  it('refuses a group whose items name different limits in the options', () => {
    expect(() => serve({ tools: { search: { limit: 3, windowMs: 60_000, group: 'g' }, lookup: { limit: 4, windowMs: 60_000, group: 'g' } } })).toThrow(
      new DefinitionError('INVALID_OPTION', 'guards:rate-limit: tools["lookup"]: the group "g" is already limited to 3 per 60000 ms (caller, sliding-window); items of one group share one count and one limit'),
    );
  });

  it('applies @RateLimit, and the options win over it', async () => {
    const byDecorator = await connect(serve({}));
    await byDecorator.callTool('declared');
    await byDecorator.callTool('declared');
    expect((await refusal(byDecorator.callTool('declared'))).message).toMatch(/^Rate limit: tool "declared" allows 2 calls per 60 s per caller/);

    const byOptions = await connect(serve({ tools: { declared: { limit: 4, windowMs: 1000 } } }));
    for (let i = 0; i < 4; i++) await byOptions.callTool('declared');
    expect((await refusal(byOptions.callTool('declared'))).message).toMatch(/^Rate limit: tool "declared" allows 4 calls per 1 s per caller/);
  });

  it('limits prompts by name and resources by uri or by template', async () => {
    const client = await connect(
      serve({
        prompts: { greet: { limit: 1, windowMs: 60_000 } },
        resources: { 'docs://pages/{id}': { limit: 2, windowMs: 120_000 }, 'docs://readme': { limit: 1, windowMs: 3_600_000 } },
      }),
    );
    await client.getPrompt('greet');
    expect((await refusal(client.getPrompt('greet'))).message).toMatch(/^Rate limit: prompt "greet" allows 1 request per 60 s per caller/);
    // Pages share their template's count.
    await client.readResource('docs://pages/a');
    await client.readResource('docs://pages/b');
    expect((await refusal(client.readResource('docs://pages/c'))).message).toMatch(/^Rate limit: resource "docs:\/\/pages\/\{id\}" allows 2 reads per 2 min per caller/);
    await client.readResource('docs://readme');
    expect((await refusal(client.readResource('docs://readme'))).message).toMatch(/allows 1 read per 1 h per caller/);
    expect(runs).toEqual({ greet: 1, page: 2, readme: 1 });
  });

  it('passes requests it cannot place (an unknown tool, a name that is no string) to the server as they are', async () => {
    const client = await connect(serve({ tools: { search: { limit: 1, windowMs: 60_000 } }, limits: [{ limit: 100, windowMs: 1000, tools: ['search'] }] }));
    expect((await refusal(client.request('tools/call', { name: 'nothing' }))).code).not.toBe(-32023);
    expect((await refusal(client.request('tools/call', { name: 42 as never }))).code).not.toBe(-32023);
    expect(textOf(await client.callTool('search'))).toBe('found');
  });
});

describe('the rateLimit plugin, server-wide rules', () => {
  it('counts every request by default, whatever its method', async () => {
    const client = await connect(serve({ limits: [{ limit: 3, windowMs: 60_000 }] }));
    await client.listTools();
    await client.callTool('free');
    await client.readResource('docs://readme');
    const error = await refusal(client.callTool('free'));
    expect(error.message).toMatch(/^Rate limit: the server allows 3 requests per 60 s per caller; retry in \d+ s$/);
    await refusal(client.listTools());
  });

  it('counts only the methods a rule names, and a named rule is named in its message', async () => {
    const client = await connect(serve({ limits: [{ name: 'reads', limit: 1, windowMs: 60_000, methods: ['resources/read'] }] }));
    await client.readResource('docs://readme');
    expect((await refusal(client.readResource('docs://readme'))).message).toMatch(/^Rate limit: "reads" allows 1 resources\/read request per 60 s per caller/);
    for (let i = 0; i < 3; i++) await client.callTool('free');
  });

  it('counts a group of tools together, and checks every rule that applies', async () => {
    const client = await connect(
      serve({
        limits: [
          { name: 'search tools', limit: 3, windowMs: 60_000, tools: ['search', 'lookup'] },
          { limit: 10, windowMs: 60_000, per: 'server' },
        ],
        tools: { search: { limit: 2, windowMs: 60_000 } },
      }),
    );
    await client.callTool('search');
    await client.callTool('search');
    // search's own limit.
    expect((await refusal(client.callTool('search'))).message).toMatch(/^Rate limit: tool "search"/);
    // The group's third call: search's refused call counted against it before its own limit refused it.
    expect((await refusal(client.callTool('lookup'))).message).toMatch(/^Rate limit: "search tools" allows 3 calls per 60 s per caller/);
    await client.callTool('free');
    expect(runs).toEqual({ search: 2, free: 1 });
  });
});

describe('the rateLimit plugin when its store fails', () => {
  /** A store that fails while `failing` is true, and counts with a memory store otherwise. */
  function flakyStore() {
    const memory = new MemoryRateLimitStore();
    const flaky = {
      failing: true,
      take(key: string, rule: RateRule): RateDecision | Promise<RateDecision> {
        return flaky.failing ? Promise.reject(new Error('store down')) : memory.take(key, rule);
      },
    };
    return flaky;
  }

  it('lets requests through by default, reporting once per run of failures', async () => {
    const store = flakyStore();
    const client = await connect(serve({ tools: { search: { limit: 1, windowMs: 60_000 } }, store }));
    for (let i = 0; i < 3; i++) expect(textOf(await client.callTool('search'))).toBe('found');
    expect(reported).toHaveLength(1);
    expect(reported[0][0]).toBe('plugin "guards:rate-limit": the rate limit store failed; until it answers again, requests are let through (onStoreError: "allow")');
    expect((reported[0][1] as Error).message).toBe('store down');
    store.failing = false;
    await client.callTool('search');
    await refusal(client.callTool('search'));
    store.failing = true;
    await client.callTool('search');
    expect(reported).toHaveLength(2);
  });

  it('refuses requests with onStoreError: "refuse"', async () => {
    const client = await connect(serve({ tools: { search: { limit: 1, windowMs: 60_000 } }, store: flakyStore(), onStoreError: 'refuse' }));
    const error = await refusal(client.callTool('search'));
    expect(error.code).toBe(-32603);
    expect(error.message).toMatch(/Rate limits cannot be checked now; try again later/);
    await refusal(client.callTool('search'));
    expect(runs.search).toBeUndefined();
    expect(reported).toHaveLength(1);
    // Requests no limit applies to are served.
    expect(textOf(await client.callTool('free'))).toBe('free');
  });

  it('takes a store that answers what is no decision as a failing one', async () => {
    const store: RateLimitStore = { take: () => Promise.resolve(undefined as never) };
    const client = await connect(serve({ tools: { search: { limit: 1, windowMs: 60_000 } }, store, onStoreError: 'refuse' }));
    expect((await refusal(client.callTool('search'))).code).toBe(-32603);
    expect(String(reported[0][1])).toMatch(/the store answered undefined/);
  });
});

/** An interceptor added first (outermost): how each `tools/call` came back from the rest, `sync`, `async` (a promise) or `threw` at once. */
function probe(seen: string[]): Plugin {
  return {
    name: 'probe',
    register: (host) =>
      host.intercept((ctx, next) => {
        if (ctx.method !== 'tools/call') return next();
        let result: unknown;
        try {
          result = next();
        } catch (error) {
          seen.push('threw');
          throw error;
        }
        seen.push(result instanceof Promise ? 'async' : 'sync');
        return result;
      }),
  };
}

function probed(seen: string[], options: RateLimitOptions): McpServer {
  const server = new McpServer({ name: 'limited', version: '1.0.0', providers: [Catalogue], onError: (what, error) => reported.push([what, error]) });
  server.plugin(probe(seen)).plugin(rateLimit, options);
  servers.push(server);
  return server;
}

describe('the rateLimit plugin answers synchronously when its store does', () => {
  it('keeps a synchronous tool synchronous with the memory store, and refuses at once', async () => {
    const seen: string[] = [];
    const client = await connect(probed(seen, { tools: { search: { limit: 2, windowMs: 60_000 } }, limits: [{ limit: 100, windowMs: 60_000, per: 'server' }] }));
    expect(textOf(await client.callTool('search'))).toBe('found');
    expect(textOf(await client.callTool('search'))).toBe('found');
    expect((await refusal(client.callTool('search'))).code).toBe(-32023);
    expect(seen).toEqual(['sync', 'sync', 'threw']);
    expect(runs.search).toBe(2);
  });

  it('waits for a store that answers a promise, counting as the memory store does', async () => {
    const seen: string[] = [];
    const memory = new MemoryRateLimitStore();
    const store: RateLimitStore = { take: (key, rule) => Promise.resolve(memory.take(key, rule)) };
    const client = await connect(probed(seen, { tools: { search: { limit: 1, windowMs: 60_000 } }, store }));
    expect(textOf(await client.callTool('search'))).toBe('found');
    expect((await refusal(client.callTool('search'))).code).toBe(-32023);
    expect(seen).toEqual(['async', 'async']);
    expect(runs.search).toBe(1);
  });

  it('waits once for the hash of a long caller key, then answers at once from what it remembers', async () => {
    const seen: string[] = [];
    const keys: string[] = [];
    const memory = new MemoryRateLimitStore();
    const store: RateLimitStore = { take: (key, rule) => (keys.push(key), memory.take(key, rule)) };
    const client = await connect(probed(seen, { tools: { search: { limit: 3, windowMs: 60_000 } }, store }), 'x'.repeat(200));
    for (let i = 0; i < 3; i++) expect(textOf(await client.callTool('search'))).toBe('found');
    expect((await refusal(client.callTool('search'))).code).toBe(-32023);
    expect(seen).toEqual(['async', 'sync', 'sync', 'threw']);
    // One key throughout: the hashed caller part, remembered.
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toMatch(/^rl:t:search:#[\w-]{43}$/);
  });
});

describe('the rateLimit plugin checks its options when it is added', () => {
  const refused: Array<[string, unknown, string | RegExp]> = [
    ['options not an object', 5, 'guards:rate-limit: the options must be an object, got 5'],
    ['an unknown option', { limit: 5 }, 'guards:rate-limit: unknown option "limit" (known: limits, tools, prompts, resources, perAddress, trustProxies, store, onStoreError, quota)'],
    ['limits not an array', { limits: {} }, 'guards:rate-limit: limits must be an array of rules, got an object'],
    ['a limit of 0', { limits: [{ limit: 0, windowMs: 1000 }] }, 'guards:rate-limit: limits[0].limit must be a positive integer, got 0'],
    ['a fractional limit', { tools: { search: { limit: 1.5, windowMs: 1000 } } }, 'guards:rate-limit: tools["search"].limit must be a positive integer, got 1.5'],
    ['a window of 0', { tools: { search: { limit: 1, windowMs: 0 } } }, 'guards:rate-limit: tools["search"].windowMs must be a positive integer of ms (≥ 1), got 0'],
    ['a window as text', { prompts: { greet: { limit: 1, windowMs: '1s' } } }, 'guards:rate-limit: prompts["greet"].windowMs must be a positive integer of ms (≥ 1), got "1s"'],
    ['an unknown algorithm', { limits: [{ limit: 1, windowMs: 1, algorithm: 'leaky' }] }, 'guards:rate-limit: limits[0].algorithm must be "sliding-window" or "token-bucket", got "leaky"'],
    ['an unknown per', { limits: [{ limit: 1, windowMs: 1, per: 'user' }] }, 'guards:rate-limit: limits[0].per must be "caller" or "server", got "user"'],
    ['an unknown key of a rule', { limits: [{ limit: 1, windowMs: 1, window: 5 }] }, 'guards:rate-limit: limits[0]: unknown option "window" (known: limit, windowMs, per, algorithm, methods, tools, name)'],
    ['a group in a server-wide rule', { limits: [{ limit: 1, windowMs: 1, group: 'g' }] }, /limits\[0\]: unknown option "group"/],
    ['methods and tools', { limits: [{ limit: 1, windowMs: 1, methods: ['tools/call'], tools: ['search'] }] }, 'guards:rate-limit: limits[0]: give methods or tools, not both (tools counts their tools/call requests)'],
    ['empty methods', { limits: [{ limit: 1, windowMs: 1, methods: [] }] }, 'guards:rate-limit: limits[0].methods must be a non-empty array of names, got an array'],
    ['two rules of one name', { limits: [{ limit: 1, windowMs: 1, name: 'a' }, { limit: 2, windowMs: 1, name: 'a' }] }, /limits\[1\]: another rule is named "a"/],
    ['an empty group', { tools: { search: { limit: 1, windowMs: 1, group: '' } } }, 'guards:rate-limit: tools["search"].group must be a non-empty string, got ""'],
    ['per on perAddress', { perAddress: { limit: 1, windowMs: 1, per: 'server' } }, /perAddress: unknown option "per" \(known: limit, windowMs, algorithm\)/],
    ['a proxy that is no address', { trustProxies: ['nowhere'] }, 'guards:rate-limit: trustProxies: "nowhere" is not an IP address, a CIDR range, "loopback", "private" or "uniquelocal"'],
    ['a store without take', { store: {} }, 'guards:rate-limit: store must be a RateLimitStore (an object with take(key, rule)), got an object'],
    ['an unknown onStoreError', { onStoreError: 'ignore' }, 'guards:rate-limit: onStoreError must be "allow" or "refuse", got "ignore"'],
    ['quota not a boolean', { quota: 'yes' }, 'guards:rate-limit: quota must be true or false, got "yes"'],
    ['a limit × window too large', { tools: { search: { limit: 2 ** 30, windowMs: 2 ** 30 } } }, /limit × windowMs is too large/],
  ];

  it.each(refused)('refuses %s', (_case, options, message) => {
    const server = new McpServer({ name: 'limited', version: '1.0.0', providers: [Catalogue] });
    servers.push(server);
    expect(() => server.plugin(rateLimit, options as RateLimitOptions)).toThrow(message);
  });

  it('refuses a wrong @RateLimit where it is written', () => {
    expect(() => {
      class Wrong {
        @Tool({ description: 'x' })
        @RateLimit({ limit: 5, windowMs: -1 })
        x(): string {
          return 'x';
        }
      }
      return Wrong;
    }).toThrow('@RateLimit on Wrong.x.windowMs must be a positive integer of ms (≥ 1), got -1');
  });
});
