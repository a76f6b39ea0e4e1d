import 'reflect-metadata';
import { IsInt, Min } from 'class-validator';
import { Context, McpServer, Tool } from '@typemcp/core';
import { checkedClients, RawClient } from './rawClient';

const connect = checkedClients();

/** A provider class with `count` tools named t000, t001, … */
function manyTools(count: number, prefix = 't'): new () => object {
  class Many {}
  for (let i = 0; i < count; i++) {
    const name = `${prefix}${String(i).padStart(3, '0')}`;
    Object.defineProperty(Many.prototype, name, { value: () => name, writable: true, configurable: true });
    Reflect.defineMetadata('design:paramtypes', [], Many.prototype, name);
    Tool()(Many.prototype, name, Object.getOwnPropertyDescriptor(Many.prototype, name)!);
  }
  return Many;
}

async function walk(client: RawClient, method = 'tools/list'): Promise<string[]> {
  const names: string[] = [];
  let cursor: string | undefined;
  do {
    const { result } = await client.request(method, cursor ? { cursor } : {});
    names.push(...result.tools.map((t: { name: string }) => t.name));
    cursor = result.nextCursor;
  } while (cursor);
  return names;
}

describe('pagination', () => {
  it('walks 250 tools in pages of 100 in a stable order', async () => {
    const client = await connect(new McpServer({ name: 'p', version: '1', providers: [manyTools(250)] }));
    const first = await client.request('tools/list');
    expect(first.result.tools).toHaveLength(100);
    expect(typeof first.result.nextCursor).toBe('string');
    const names = await walk(client);
    expect(names).toHaveLength(250);
    expect(new Set(names).size).toBe(250);
    expect(names[0]).toBe('t000');
    expect(names[249]).toBe('t249');
    expect(await walk(client)).toEqual(names);
  });

  it('neither skips nor repeats when the list changes between pages', async () => {
    const server = new McpServer({ name: 'p', version: '1', providers: [manyTools(250)], pageSize: 50 });
    const client = await connect(server);
    const first = await client.request('tools/list');
    const seen = first.result.tools.map((t: { name: string }) => t.name);
    server.tools.remove('t010'); // already seen
    server.tools.remove('t060'); // not seen yet: must not appear
    server.register(manyTools(3, 'late'));
    let cursor = first.result.nextCursor;
    while (cursor) {
      const { result } = await client.request('tools/list', { cursor });
      seen.push(...result.tools.map((t: { name: string }) => t.name));
      cursor = result.nextCursor;
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).not.toContain('t060');
    expect(seen.slice(-3)).toEqual(['late000', 'late001', 'late002']);
    expect(seen).toHaveLength(250 + 3 - 1);
  });

  it('refuses an invalid cursor with -32602', async () => {
    const client = await connect(new McpServer({ name: 'p', version: '1', providers: [manyTools(5)], pageSize: 2 }));
    for (const cursor of ['garbage!', 'dG9vbHM6OTk5', Buffer.from('prompts:1').toString('base64url'), 42]) {
      const response = await client.request('tools/list', { cursor });
      expect(response.error).toMatchObject({ code: -32602, message: expect.stringContaining('Invalid cursor') });
    }
  });

  it('can be switched off', async () => {
    const client = await connect(new McpServer({ name: 'p', version: '1', providers: [manyTools(250)], pageSize: false }));
    const { result } = await client.request('tools/list');
    expect(result.tools).toHaveLength(250);
    expect(result.nextCursor).toBeUndefined();
  });
});

let reportLate: (() => void) | undefined;

class StepsInput {
  @IsInt() @Min(1) steps!: number;
}

class Chores {
  @Tool() async work(input: StepsInput, ctx: Context): Promise<string> {
    for (let i = 1; i <= input.steps; i++) {
      ctx.progress(i, input.steps, `step ${i}`);
      ctx.progress(i - 0.5); // not increasing: dropped
      await new Promise((resolve) => setImmediate(resolve));
    }
    return 'done';
  }

  @Tool() chatty(ctx: Context): string {
    ctx.log.debug('debug detail');
    ctx.log.info({ event: 'started' }, 'worker');
    ctx.log.error('it broke');
    return 'logged';
  }

  @Tool() flood(ctx: Context): string {
    for (let i = 0; i < 500; i++) ctx.log.warning(`line ${i}`);
    return 'flooded';
  }

  @Tool() lateProgress(ctx: Context): string {
    reportLate = () => ctx.progress(99);
    return 'early';
  }
}

describe('progress', () => {
  it('sends increasing progress only when the request carries a progressToken', async () => {
    const client = await connect(new McpServer({ name: 'c', version: '1', providers: [Chores] }));
    await client.request('tools/call', { name: 'work', arguments: { steps: 3 }, _meta: { progressToken: 'tok' } });
    const progress = client.received.filter((r) => r.message.method === 'notifications/progress').map((r) => r.message.params);
    expect(progress).toEqual([
      { progressToken: 'tok', progress: 1, total: 3, message: 'step 1' },
      { progressToken: 'tok', progress: 2, total: 3, message: 'step 2' },
      { progressToken: 'tok', progress: 3, total: 3, message: 'step 3' },
    ]);
    await client.request('tools/call', { name: 'work', arguments: { steps: 2 } });
    expect(client.received.filter((r) => r.message.method === 'notifications/progress')).toHaveLength(3);
  });

  it('sends nothing after the response', async () => {
    const server = new McpServer({ name: 'c', version: '1', providers: [Chores] });
    const client = await connect(server);
    await client.request('tools/call', { name: 'lateProgress', _meta: { progressToken: 7 } });
    reportLate!();
    await client.settle();
    expect(client.received.some((r) => r.message.method === 'notifications/progress')).toBe(false);
  });

  it('leaves out the message in 2024-11-05', async () => {
    const client = await connect(new McpServer({ name: 'c', version: '1', providers: [Chores] }), '2024-11-05');
    await client.request('tools/call', { name: 'work', arguments: { steps: 1 }, _meta: { progressToken: 1 } });
    expect(client.received.find((r) => r.message.method === 'notifications/progress')!.message.params).toEqual({ progressToken: 1, progress: 1, total: 1 });
  });
});

describe('logging', () => {
  const messages = (client: RawClient) => client.received.filter((r) => r.message.method === 'notifications/message').map((r) => r.message.params);

  it('filters by the session level, info by default', async () => {
    const client = await connect(new McpServer({ name: 'c', version: '1', providers: [Chores] }));
    await client.request('tools/call', { name: 'chatty' });
    expect(messages(client)).toEqual([
      { level: 'info', logger: 'worker', data: { event: 'started' } },
      { level: 'error', data: 'it broke' },
    ]);
    expect((await client.request('logging/setLevel', { level: 'error' })).result).toEqual({});
    await client.request('tools/call', { name: 'chatty' });
    expect(messages(client)).toHaveLength(3);
    await client.request('logging/setLevel', { level: 'debug' });
    await client.request('tools/call', { name: 'chatty' });
    expect(messages(client).slice(3).map((m) => m.level)).toEqual(['debug', 'info', 'error']);
  });

  it('refuses an unknown level with -32602', async () => {
    const client = await connect(new McpServer({ name: 'c', version: '1', providers: [Chores] }));
    const response = await client.request('logging/setLevel', { level: 'verbose' });
    expect(response.error).toMatchObject({ code: -32602, message: expect.stringContaining('Unknown logging level "verbose"') });
  });

  it('logs outside requests to every initialized session by its own level', async () => {
    const server = new McpServer({ name: 'c', version: '1', providers: [Chores] });
    const quiet = await connect(server);
    const loud = await connect(server);
    await quiet.request('logging/setLevel', { level: 'critical' });
    server.log.warning('disk almost full', 'storage');
    await loud.waitFor((m) => m.method === 'notifications/message');
    await quiet.settle();
    expect(messages(loud)).toEqual([{ level: 'warning', logger: 'storage', data: 'disk almost full' }]);
    expect(messages(quiet)).toEqual([]);
  });

  it('limits the rate per session', async () => {
    const client = await connect(new McpServer({ name: 'c', version: '1', providers: [Chores], logRateLimit: 10 }));
    await client.request('tools/call', { name: 'flood' });
    const count = messages(client).length;
    expect(count).toBeGreaterThanOrEqual(20);
    expect(count).toBeLessThan(30);
  });
});

describe('options and cancellation of chores', () => {
  it.each([
    [{ logLevel: 'verbose' }, /logLevel must be one of debug, info/],
    [{ logRateLimit: 0 }, /logRateLimit must be a positive number/],
  ])('refuses %p at startup', (options, message) => {
    expect(() => new McpServer({ name: 'x', version: '1', ...(options as object) })).toThrow(message);
  });

  it('sends no progress or logs for a cancelled request', async () => {
    let step!: () => void;
    class Cancellable {
      @Tool() async long(ctx: Context): Promise<string> {
        ctx.progress(1);
        await new Promise<void>((resolve) => (step = resolve));
        ctx.progress(2);
        ctx.log.error('after cancel');
        return 'late';
      }
    }
    const client = await connect(new McpServer({ name: 'c', version: '1', providers: [Cancellable] }));
    client.send({ jsonrpc: '2.0', id: 'l', method: 'tools/call', params: { name: 'long', _meta: { progressToken: 'p' } } });
    await client.waitFor((m) => m.method === 'notifications/progress');
    client.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'l' } });
    await client.settle();
    step();
    await client.settle();
    expect(client.received.filter((r) => r.message.method === 'notifications/progress')).toHaveLength(1);
    expect(client.received.some((r) => r.message.method === 'notifications/message' || r.message.id === 'l')).toBe(false);
  });
});
