import 'reflect-metadata';
import { Context, InMemoryTransport, McpServer, metadataStore, Prompt, Resource, Tool } from '@typemcp/core';
import type { ListenAddress, Plugin } from '@typemcp/core';
import { McpRequestError, TestClient } from '@typemcp/testing';
import type { TestClientOptions } from '@typemcp/testing';
import { Timeout, timeouts } from '@typemcp/guards';
import type { TimeoutOptions } from '@typemcp/guards';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** What the handlers saw, per test. */
let seen: { signal?: AbortSignal; finished: string[]; handOff?: unknown; reported: unknown[] };
/** Holds the slow tool until the test lets it go. */
let release: () => void;
let released: Promise<void>;

function declareProviders() {
  class Slow {
    @Tool({ description: 'Ignores its signal and answers late' })
    @Timeout(50)
    async slow(ctx: Context): Promise<string> {
      seen.signal = ctx.signal;
      await released;
      seen.finished.push('slow');
      return 'late';
    }

    @Tool({ description: 'Fails late' })
    @Timeout(50)
    async failsLate(): Promise<string> {
      await sleep(150);
      seen.finished.push('failsLate');
      throw new Error('failed after its time');
    }

    @Tool({ description: 'Stops when its signal aborts' })
    async polite(ctx: Context): Promise<string> {
      seen.signal = ctx.signal;
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
      return 'stopped';
    }

    @Tool({ description: 'Quick' })
    @Timeout(1000)
    quick(): string {
      return 'quick';
    }

    @Tool({ description: 'Hands off to a task at once, then works past the limit', task: 'optional', taskStart: 'continueAsTask' })
    @Timeout(50)
    async handsOff(ctx: Context): Promise<string> {
      await ctx.continueAsTask();
      seen.signal = ctx.signal;
      await sleep(150);
      return `done, aborted: ${ctx.signal.aborted}`;
    }

    @Tool({ description: 'Would hand off after its limit', task: 'optional', taskStart: 'continueAsTask' })
    @Timeout(50)
    async handsOffLate(ctx: Context): Promise<string> {
      await sleep(120);
      try {
        await ctx.continueAsTask();
      } catch (error) {
        seen.handOff = error;
      }
      return 'late';
    }

    @Resource({ uri: 'mem://slow', mimeType: 'text/plain' })
    async doc(): Promise<string> {
      await sleep(200);
      return 'doc';
    }

    @Prompt({ description: 'Slow prompt' })
    async ask(): Promise<string> {
      await sleep(200);
      return 'ask';
    }
  }
  return { Slow };
}

let Slow: ReturnType<typeof declareProviders>['Slow'];
const clients: TestClient[] = [];
const servers: McpServer[] = [];
beforeEach(() => {
  metadataStore.clear();
  ({ Slow } = declareProviders());
  seen = { finished: [], reported: [] };
  released = new Promise((resolve) => (release = resolve));
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

function serverWith(options: TimeoutOptions = {}) {
  const server = new McpServer({ name: 'slow', version: '1.0.0', providers: [Slow], onError: (_what, error) => void seen.reported.push(error) }).plugin(timeouts, options);
  servers.push(server);
  return server;
}

/** A client in memory, and every message the server sent it. */
async function connect(options: TimeoutOptions = {}, clientOptions: TestClientOptions = {}) {
  const server = serverWith(options);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const sent: Array<{ id?: unknown; result?: unknown; error?: unknown }> = [];
  const send = serverSide.send.bind(serverSide);
  serverSide.send = (message) => {
    sent.push(message as never);
    return send(message);
  };
  await server.connect(serverSide);
  const client = await TestClient.connect(clientSide, clientOptions);
  clients.push(client);
  return { client, sent };
}

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

describe('timeouts', () => {
  it('aborts the handler’s signal, answers the tool error at once, drops the late result, and keeps serving', async () => {
    const { client, sent } = await connect();
    // Answered while the handler still waits.
    const result = await client.callTool('slow');
    expect(seen.finished).toEqual([]);
    expect(result).toEqual({ content: [{ type: 'text', text: 'Tool "slow" did not finish within 50 ms' }], isError: true });
    expect(seen.signal?.aborted).toBe(true);
    expect(seen.signal?.reason).toMatchObject({ name: 'RequestTimeoutError', message: 'Tool "slow" did not finish within 50 ms' });

    expect(await client.callTool('quick')).toMatchObject({ content: [{ type: 'text', text: 'quick' }] });
    release();
    await sleep(20);
    expect(seen.finished).toEqual(['slow']);
    // One answer per request: the late 'late' never went out.
    const answers = sent.filter((m) => m.result !== undefined || m.error !== undefined);
    expect(answers.map((m) => JSON.stringify(m.result))).not.toContainEqual(expect.stringContaining('"late"'));
    expect(new Set(answers.map((m) => m.id)).size).toBe(answers.length);
  });

  it('does not report a handler’s late failure', async () => {
    const { client } = await connect();
    expect((await client.callTool('failsLate')).content[0].text).toBe('Tool "failsLate" did not finish within 50 ms');
    await sleep(200);
    expect(seen.finished).toEqual(['failsLate']);
    expect(seen.reported).toEqual([]);
  });

  it('answers a resource or a prompt past its limit with RequestTimeoutError, from options and defaultMs', async () => {
    const { client } = await connect({ resources: { 'mem://slow': 40 }, defaultMs: 60 });
    const read = client.readResource('mem://slow');
    await expect(read).rejects.toBeInstanceOf(McpRequestError);
    await expect(read).rejects.toMatchObject({ code: -32001, data: { timeoutMs: 40 } });
    await expect(read).rejects.toThrow('Resource "mem://slow" did not finish within 40 ms');
    const prompt = client.getPrompt('ask');
    await expect(prompt).rejects.toMatchObject({ code: -32001 });
    await expect(prompt).rejects.toThrow('Prompt "ask" did not finish within 60 ms');
  });

  it('lets options win over @Timeout, and a handler that stops on its signal ends cleanly', async () => {
    const { client } = await connect({ tools: { slow: 1000, polite: 30 } });
    setTimeout(release, 100);
    expect((await client.callTool('slow')).content[0].text).toBe('late');
    expect((await client.callTool('polite')).content[0].text).toBe('Tool "polite" did not finish within 30 ms');
    expect(seen.signal?.aborted).toBe(true);
    expect(seen.reported).toEqual([]);
  });

  it('does not cut a call handed off to a task, and refuses a hand-off asked for after the limit', async () => {
    // The schema oracle reads a tools/call answer as a CallToolResult; this one is a task.
    const { client } = await connect({}, { schemaCheck: false });
    const created = (await client.request('tools/call', { name: 'handsOff', arguments: {}, task: {} })) as { task: { taskId: string } };
    expect(created.task.taskId).toEqual(expect.any(String));
    const result = (await client.request('tasks/result', { taskId: created.task.taskId })) as { content: Array<{ text: string }> };
    expect(result.content[0].text).toBe('done, aborted: false');

    const refused = (await client.request('tools/call', { name: 'handsOffLate', arguments: {}, task: {} })) as { content: Array<{ text: string }> };
    expect(refused.content[0].text).toBe('Tool "handsOffLate" did not finish within 50 ms');
    await sleep(120);
    expect(seen.handOff).toMatchObject({ name: 'RequestTimeoutError', message: 'Tool "handsOffLate" did not finish within 50 ms: the call was answered, no task is created' });
  });

  it('sets no timer for a handler that answers synchronously, and races one that answers a promise', async () => {
    const seen: string[] = [];
    const contexts: Context[] = [];
    let timers = 0;
    const counting = (next: () => unknown) => {
      const spy = jest.spyOn(globalThis, 'setTimeout');
      try {
        return next();
      } finally {
        timers += spy.mock.calls.length;
        spy.mockRestore();
      }
    };
    const server = new McpServer({ name: 'slow', version: '1.0.0', providers: [Slow] })
      .plugin(probe(seen, counting))
      .plugin({ name: 'contexts', register: (host) => host.intercept((ctx, next) => (contexts.push(ctx.context), next())) })
      .plugin(timeouts, { defaultMs: 1000 });
    servers.push(server);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = await TestClient.connect(clientSide);
    clients.push(client);
    expect(await client.callTool('quick')).toMatchObject({ content: [{ type: 'text', text: 'quick' }] });
    expect(seen).toEqual(['sync']);
    expect(timers).toBe(0);
    // The Context's continueAsTask is its own again once the call answered.
    expect(Object.prototype.hasOwnProperty.call(contexts[0], 'continueAsTask')).toBe(false);

    setTimeout(release, 20);
    expect(await client.callTool('slow')).toMatchObject({ content: [{ type: 'text', text: 'late' }] });
    expect(seen).toEqual(['sync', 'async']);
    expect(timers).toBe(1);
    expect(Object.prototype.hasOwnProperty.call(contexts[1], 'continueAsTask')).toBe(false);
  });

  it('checks its options when added, naming the option', () => {
    expect(() => serverWith({ defaultMs: 0 })).toThrow('timeouts: defaultMs must be a whole number of milliseconds from 1 to 2147483647, not 0');
    expect(() => serverWith({ tools: { slow: Number.NaN } })).toThrow('timeouts: tools["slow"] must be a whole number of milliseconds');
    expect(() => serverWith({ default: 10 } as never)).toThrow('timeouts: unknown option "default" (known: defaultMs, tools, resources, prompts)');
    expect(() => Timeout(2 ** 31)).toThrow('@Timeout(ms) must be a whole number of milliseconds');
  });

  it('answers in time over HTTP, and the session serves the next call', async () => {
    const server = serverWith();
    const { url } = (await server.listen({ transport: 'http', host: '127.0.0.1', port: 0, handleSignals: false })) as ListenAddress;
    const post = async (body: object, session?: string) => {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(session ? { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' } : {}) },
        body: JSON.stringify(body),
      });
      const text = await response.text();
      const json = response.headers.get('content-type')?.startsWith('text/event-stream')
        ? text.split('\n').filter((line) => line.startsWith('data:')).map((line) => JSON.parse(line.slice(5)) as Record<string, unknown>).find((m) => 'id' in m)
        : text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>);
      return { response, json };
    };
    const init = await post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
    const session = init.response.headers.get('mcp-session-id')!;
    await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session);
    const timedOut = await post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'slow', arguments: {} } }, session);
    expect(seen.finished).toEqual([]);
    expect(timedOut.json).toEqual({ jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'Tool "slow" did not finish within 50 ms' }], isError: true } });
    expect(seen.signal?.aborted).toBe(true);
    const next = await post({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'quick', arguments: {} } }, session);
    expect(next.json).toMatchObject({ id: 3, result: { content: [{ type: 'text', text: 'quick' }] } });
    release();
    await sleep(20);
    expect(seen.finished).toEqual(['slow']);
  });
});
