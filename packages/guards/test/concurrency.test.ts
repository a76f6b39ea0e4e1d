import 'reflect-metadata';
import { Context, McpServer, metadataStore, Resource, Tool } from '@typemcp/core';
import type { Plugin, Principal } from '@typemcp/core';
import { createTestClient, McpRequestError } from '@typemcp/testing';
import type { CallToolResult, TestClient } from '@typemcp/testing';
import { CONCURRENCY_RETRY_AFTER_MS, ConcurrencyLimit, concurrencyLimit, Timeout, timeouts } from '@typemcp/guards';
import type { ConcurrencyOptions } from '@typemcp/guards';

/** Who started each held call, in order, and how to let each one finish. */
let started: string[];
let holds: Array<() => void>;

const hold = (ctx: Context) =>
  new Promise<void>((resolve) => {
    started.push(ctx.principal?.subject ?? 'anonymous');
    holds.push(resolve);
  });

function declareProviders() {
  class Busy {
    @Tool({ description: 'Runs until the test lets it go' })
    @ConcurrencyLimit({ max: 2, queue: 1 })
    async work(ctx: Context): Promise<string> {
      await hold(ctx);
      return 'worked';
    }

    @Tool({ description: 'Held, limited by options only' })
    async held(ctx: Context): Promise<string> {
      await hold(ctx);
      return 'held';
    }

    @Tool({ description: 'Answers at once' })
    @ConcurrencyLimit({ max: 1 })
    quick(): string {
      return 'quick';
    }

    @Tool({ description: 'Fails' })
    @ConcurrencyLimit({ max: 1 })
    fails(): string {
      throw new Error('broken');
    }

    @Tool({ description: 'Stops when cancelled' })
    @ConcurrencyLimit({ max: 1 })
    async stoppable(ctx: Context): Promise<string> {
      started.push('stoppable');
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
      return 'stopped';
    }

    @Tool({ description: 'Too slow for its time limit' })
    @ConcurrencyLimit({ max: 1 })
    @Timeout(40)
    async slow(ctx: Context): Promise<string> {
      started.push('slow');
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
      return 'late';
    }

    @Resource({ uri: 'mem://{name}', mimeType: 'text/plain' })
    async doc(vars: { name: string }, ctx: Context): Promise<string> {
      await hold(ctx);
      return vars.name;
    }
  }
  return { Busy };
}

let Busy: ReturnType<typeof declareProviders>['Busy'];
const clients: TestClient[] = [];
const servers: McpServer[] = [];
beforeEach(() => {
  metadataStore.clear();
  ({ Busy } = declareProviders());
  started = [];
  holds = [];
});
afterEach(async () => {
  holds.forEach((release) => release());
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const alice: Principal = { subject: 'alice', scopes: [], claims: {} };
const bob: Principal = { subject: 'bob', scopes: [], claims: {} };

function serverWith(options: ConcurrencyOptions = {}) {
  const server = new McpServer({ name: 'busy', version: '1.0.0', providers: [Busy], onError: () => undefined }).plugin(concurrencyLimit, options).plugin(timeouts);
  servers.push(server);
  return server;
}

async function clientOf(server: McpServer, principal?: Principal) {
  const client = await createTestClient(server, principal === undefined ? {} : { principal });
  clients.push(client);
  return client;
}

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(condition()).toBe(true);
}

const text = (result: CallToolResult) => result.content[0].text;

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

describe('concurrencyLimit', () => {
  it('runs max calls at once, queues up to its bound in order, and refuses the call past it at once', async () => {
    const client = await clientOf(serverWith());
    const first = client.callTool('work');
    const second = client.callTool('work');
    await until(() => started.length === 2);
    const third = client.callTool('work');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(started).toHaveLength(2);

    const refused = client.callTool('work');
    await expect(refused).rejects.toBeInstanceOf(McpRequestError);
    await expect(refused).rejects.toMatchObject({ code: -32023, data: { retryAfterMs: CONCURRENCY_RETRY_AFTER_MS } });
    await expect(refused).rejects.toThrow('Tool "work" is busy: 2 running (at most 2), 1 waiting (at most 1); try again shortly');

    holds[0]();
    expect(text(await first)).toBe('worked');
    await until(() => started.length === 3);
    holds[1]();
    holds[2]();
    expect([text(await second), text(await third)]).toEqual(['worked', 'worked']);
    // All slots are free again.
    const again = [client.callTool('work'), client.callTool('work')];
    await until(() => started.length === 5);
    holds[3]();
    holds[4]();
    expect((await Promise.all(again)).map(text)).toEqual(['worked', 'worked']);
  });

  it('limits each caller to perCaller, and a waiting caller at its limit does not hold up another', async () => {
    const server = serverWith({ tools: { held: { max: 3, perCaller: 1 } } });
    const [a, b] = [await clientOf(server, alice), await clientOf(server, bob)];
    const aliceFirst = a.callTool('held');
    await until(() => started.length === 1);
    await expect(a.callTool('held')).rejects.toThrow('Tool "held" is busy: this caller has 1 running (at most 1); 1 running (at most 3), 0 waiting (at most 0); try again shortly');
    const bobFirst = b.callTool('held');
    await until(() => started.length === 2);
    expect(started).toEqual(['alice', 'bob']);
    holds[0]();
    holds[1]();
    expect([text(await aliceFirst), text(await bobFirst)]).toEqual(['held', 'held']);

    const queued = serverWith({ tools: { held: { max: 2, perCaller: 1, queue: 2 } } });
    const [c, d] = [await clientOf(queued, alice), await clientOf(queued, bob)];
    started = [];
    holds = [];
    const calls = [c.callTool('held')];
    await until(() => started.length === 1);
    calls.push(c.callTool('held'));
    await new Promise((resolve) => setTimeout(resolve, 20));
    calls.push(d.callTool('held'));
    await until(() => started.length === 2);
    // Bob went past Alice's waiting call: she is at her own limit.
    expect(started).toEqual(['alice', 'bob']);
    holds[0]();
    await until(() => started.length === 3);
    expect(started).toEqual(['alice', 'bob', 'alice']);
    holds[1]();
    holds[2]();
    expect((await Promise.all(calls)).map(text)).toEqual(['held', 'held', 'held']);
  });

  it('gives the slot back when a call fails, times out or is cancelled, and a cancelled waiting call leaves the queue', async () => {
    const client = await clientOf(serverWith({ tools: { held: { max: 1, queue: 1 } } }));
    expect((await client.callTool('fails')).isError).toBe(true);
    expect((await client.callTool('fails')).isError).toBe(true);

    // timeouts is added after concurrencyLimit: the call's own time, and its slot back when it is up.
    expect(text(await client.callTool('slow'))).toBe('Tool "slow" did not finish within 40 ms');
    expect(text(await client.callTool('slow'))).toBe('Tool "slow" did not finish within 40 ms');

    const running = new AbortController();
    const stopped = client.callTool('stoppable', {}, { signal: running.signal });
    await until(() => started.includes('stoppable'));
    running.abort();
    await expect(stopped).rejects.toThrow();
    const again = new AbortController();
    const next = client.callTool('stoppable', {}, { signal: again.signal });
    await until(() => started.filter((s) => s === 'stoppable').length === 2);
    again.abort();
    await expect(next).rejects.toThrow();

    started = [];
    const first = client.callTool('held');
    await until(() => started.length === 1);
    const waiting = new AbortController();
    const cancelled = client.callTool('held', {}, { signal: waiting.signal });
    await new Promise((resolve) => setTimeout(resolve, 20));
    waiting.abort();
    await expect(cancelled).rejects.toThrow();
    await new Promise((resolve) => setTimeout(resolve, 20));
    // Its place in the queue is free: another call waits instead of being refused.
    const third = client.callTool('held');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(started).toHaveLength(1);
    holds[0]();
    await until(() => started.length === 2);
    holds[1]();
    expect([text(await first), text(await third)]).toEqual(['held', 'held']);
  });

  it('with timeouts added before it, a call that waits too long leaves the queue, and a timed-out running call keeps its slot until its handler returns', async () => {
    const server = new McpServer({ name: 'busy', version: '1.0.0', providers: [Busy], onError: () => undefined })
      .plugin(timeouts, { tools: { held: 150 } })
      .plugin(concurrencyLimit, { tools: { held: { max: 1, queue: 1 } } });
    servers.push(server);
    const client = await clientOf(server);
    const expired = 'Tool "held" did not finish within 150 ms';
    expect(text(await client.callTool('held'))).toBe(expired);
    // The first handler still holds the slot: this one waits, and its time runs out in the queue.
    expect(text(await client.callTool('held'))).toBe(expired);
    expect(started).toHaveLength(1);
    // It left the queue: the next call waits instead of being refused.
    const third = client.callTool('held');
    await new Promise((resolve) => setTimeout(resolve, 20));
    holds[0]();
    await until(() => started.length === 2);
    holds[1]();
    expect(text(await third)).toBe('held');
  });

  it('lets options win over @ConcurrencyLimit, gives other items the default each, and counts a template’s resources together', async () => {
    const server = serverWith({ tools: { work: { max: 1 } }, default: { max: 1 } });
    const client = await clientOf(server);
    const work = client.callTool('work');
    await until(() => started.length === 1);
    await expect(client.callTool('work')).rejects.toThrow('Tool "work" is busy: 1 running (at most 1), 0 waiting (at most 0)');
    // held has the default for itself: not counted with work.
    const held = client.callTool('held');
    await until(() => started.length === 2);
    const read = client.readResource('mem://a');
    await until(() => started.length === 3);
    await expect(client.readResource('mem://b')).rejects.toThrow('Resource "mem://b" is busy: 1 running (at most 1), 0 waiting (at most 0)');
    holds.forEach((release) => release());
    expect([text(await work), text(await held), (await read).contents[0].text]).toEqual(['worked', 'held', 'a']);
  });

  it('keeps a synchronous call synchronous, its slot back as it returns; a call that waits answers a promise', async () => {
    const seen: string[] = [];
    const server = new McpServer({ name: 'busy', version: '1.0.0', providers: [Busy], onError: () => undefined })
      .plugin(probe(seen))
      .plugin(concurrencyLimit, { tools: { held: { max: 1, queue: 1 } } });
    servers.push(server);
    const client = await clientOf(server);
    // max 1, queue 0: a slot not given back at once would refuse the next call.
    for (let i = 0; i < 3; i++) expect(text(await client.callTool('quick'))).toBe('quick');
    expect((await client.callTool('fails')).isError).toBe(true);
    expect((await client.callTool('fails')).isError).toBe(true);
    expect(seen).toEqual(['sync', 'sync', 'sync', 'sync', 'sync']);
    const first = client.callTool('held');
    await until(() => started.length === 1);
    const second = client.callTool('held');
    await new Promise((resolve) => setTimeout(resolve, 20));
    await expect(client.callTool('held')).rejects.toThrow('Tool "held" is busy: 1 running (at most 1), 1 waiting (at most 1)');
    expect(seen.slice(5)).toEqual(['async', 'async', 'threw']);
    holds[0]();
    await until(() => started.length === 2);
    holds[1]();
    expect([text(await first), text(await second)]).toEqual(['held', 'held']);
  });

  it('checks its options when added, naming the option', () => {
    expect(() => serverWith({ tools: { work: { max: 0 } } })).toThrow('concurrencyLimit: tools["work"].max must be a whole number from 1, not 0');
    expect(() => serverWith({ default: { max: 2, queue: -1 } })).toThrow('concurrencyLimit: default.queue must be a whole number from 0, not -1');
    expect(() => serverWith({ default: { max: 2, perCaler: 1 } as never })).toThrow('concurrencyLimit: default: unknown setting "perCaler" (known: max, perCaller, queue)');
    expect(() => serverWith({ tool: {} } as never)).toThrow('concurrencyLimit: unknown option "tool"');
    expect(() => serverWith({ trustProxies: ['nonsense'] })).toThrow('trustProxies: "nonsense" is not an IP address');
    expect(() => ConcurrencyLimit({ max: 1.5 })).toThrow('@ConcurrencyLimit.max must be a whole number from 1, not 1.5');
  });
});
