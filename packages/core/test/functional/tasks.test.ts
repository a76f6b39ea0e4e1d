import 'reflect-metadata';
import { Context, InvalidParamsError, McpServer, Tool, ToolError } from '@typemcp/core';
import type { Plugin, Principal } from '@typemcp/core';
import { deferred, expectValidTaskMessages, modernMeta, RELATED_TASK, sleep, TasksClient, TASKS_EXTENSION } from './tasksClient';

let gate = deferred();
let aborted: unknown[] = [];
let runs = 0;

class TaskTools {
  @Tool({ task: 'optional', description: 'Waits until the test lets it go' })
  async slow(ctx: Context): Promise<string> {
    runs++;
    ctx.progress(1, 2, 'halfway');
    await gate.promise;
    return 'slow done';
  }

  @Tool({ task: 'optional', description: 'Runs until cancelled' })
  async watch(ctx: Context): Promise<string> {
    await new Promise<void>((resolve) =>
      ctx.signal.addEventListener('abort', () => {
        aborted.push(ctx.signal.reason);
        resolve();
      }),
    );
    return 'stopped';
  }

  @Tool({ task: 'required', description: 'Only as a task' })
  must(): string {
    return 'must done';
  }

  @Tool({ task: 'optional' })
  broken(): string {
    throw new ToolError('it broke');
  }

  @Tool({ task: 'optional' })
  refusing(): string {
    throw new InvalidParamsError('not like this', { why: 'because' });
  }

  @Tool({ description: 'No task support' })
  plain(): string {
    return 'plain';
  }
}

const alice: Principal = { subject: 'alice', scopes: [], claims: {} };
const bob: Principal = { subject: 'bob', scopes: [], claims: {} };

let server: McpServer;
let clients: Array<{ client: TasksClient; version: string }>;

beforeEach(() => {
  gate = deferred();
  aborted = [];
  runs = 0;
  clients = [];
  server = new McpServer({ name: 'tasks', version: '1.0.0', providers: [TaskTools], tasks: { pollIntervalMs: 20, defaultTtlMs: 60_000, maxTtlMs: 120_000 } });
});

afterEach(async () => {
  gate.resolve();
  for (const { client, version } of clients) {
    expectValidTaskMessages(version, client);
    await client.close();
  }
  await server.close();
});

async function connect(options: { principal?: Principal; version?: string } = {}): Promise<TasksClient> {
  const client = await TasksClient.connect(server, options);
  clients.push({ client, version: options.version === 'none' ? '2026-07-28' : (options.version ?? '2025-11-25') });
  return client;
}

const call = (client: TasksClient, name: string, task?: Record<string, unknown>) => client.request('tools/call', task ? { name, arguments: {}, task } : { name, arguments: {} });

describe('tasks, protocol 2025-11-25', () => {
  it('declares the tasks capability and execution.taskSupport only where the version has them', async () => {
    const client = await connect();
    const init = client.received[0].message.result;
    expect(init.capabilities.tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
    const { result } = await client.request('tools/list');
    const byName = Object.fromEntries(result.tools.map((t: any) => [t.name, t]));
    expect(byName.slow.execution).toEqual({ taskSupport: 'optional' });
    expect(byName.must.execution).toEqual({ taskSupport: 'required' });
    expect(byName.plain.execution).toBeUndefined();

    const older = await connect({ version: '2025-06-18' });
    expect(older.received[0].message.result.capabilities.tasks).toBeUndefined();
    const listed = (await older.request('tools/list')).result.tools;
    expect(listed.every((t: any) => t.execution === undefined)).toBe(true);
  });

  it('creates a task, reports it with tasks/get, and tasks/result waits for the result', async () => {
    const client = await connect();
    const created = await call(client, 'slow', { ttl: 60_000 });
    const task = created.result.task;
    expect(task).toMatchObject({ status: 'working', ttl: 60_000, pollInterval: 20 });
    expect(typeof task.taskId).toBe('string');
    expect(task.taskId.length).toBeGreaterThanOrEqual(32);

    const got = await client.request('tasks/get', { taskId: task.taskId });
    expect(got.result).toEqual({ ...task, lastUpdatedAt: expect.any(String) });

    const waiting = client.request('tasks/result', { taskId: task.taskId });
    await sleep(50);
    expect(client.received.some((r) => r.requestMethod === 'tasks/result')).toBe(false);
    gate.resolve();
    const result = await waiting;
    expect(result.result).toEqual({
      content: [{ type: 'text', text: 'slow done' }],
      _meta: { [RELATED_TASK]: { taskId: task.taskId } },
    });
    expect((await client.request('tasks/get', { taskId: task.taskId })).result.status).toBe('completed');
    const status = await client.waitFor((m) => m.method === 'notifications/tasks/status');
    expect(status.params).toMatchObject({ taskId: task.taskId, status: 'completed' });
    expect(status.params._meta).toBeUndefined();
    // The progress the tool reported reached the session, tied to the task.
    const progress = client.received.find((r) => r.message.method === 'notifications/progress');
    expect(progress).toBeUndefined(); // no progressToken was given
  });

  it('sends progress of a task to its session with the related-task _meta', async () => {
    const client = await connect();
    const created = await client.request('tools/call', { name: 'slow', arguments: {}, task: {}, _meta: { progressToken: 'p1' } });
    const progress = await client.waitFor((m) => m.method === 'notifications/progress');
    expect(progress.params).toMatchObject({ progressToken: 'p1', progress: 1, total: 2, _meta: { [RELATED_TASK]: { taskId: created.result.task.taskId } } });
  });

  it('sends the logs of a task with the related-task _meta, still filtered by the session’s level', async () => {
    class Chatty {
      @Tool({ task: 'optional', description: 'Logs' })
      chatty(ctx: Context): string {
        ctx.log.debug('too fine');
        ctx.log.info('from the task');
        return 'ok';
      }
    }
    const own = new McpServer({ name: 'logs', version: '1.0.0', providers: [Chatty] });
    try {
      const client = await TasksClient.connect(own);
      await client.request('logging/setLevel', { level: 'info' });
      const taskId = (await client.request('tools/call', { name: 'chatty', arguments: {}, task: {} })).result.task.taskId;
      await client.request('tasks/result', { taskId });
      const logs = client.received.filter((r) => r.message.method === 'notifications/message').map((r) => r.message.params);
      expect(logs).toEqual([{ level: 'info', data: 'from the task', _meta: { [RELATED_TASK]: { taskId } } }]);
      expectValidTaskMessages('2025-11-25', client);
      await client.close();
    } finally {
      await own.close();
    }
  });

  it('runs a tool with optional support as usual when the call asks for no task', async () => {
    const client = await connect();
    gate.resolve();
    expect((await call(client, 'slow')).result.content).toEqual([{ type: 'text', text: 'slow done' }]);
  });

  it('refuses a required tool called without a task, and a forbidden one called with one (-32601)', async () => {
    const client = await connect();
    const required = await call(client, 'must');
    expect(required.error.code).toBe(-32601);
    expect(required.error.message).toMatch(/Task augmentation required.*"must"/);
    const forbidden = await call(client, 'plain', {});
    expect(forbidden.error.code).toBe(-32601);
    expect(forbidden.error.message).toMatch(/"plain" cannot run as a task/);
    const created = await call(client, 'must', {});
    const result = await client.request('tasks/result', { taskId: created.result.task.taskId });
    expect(result.result.content).toEqual([{ type: 'text', text: 'must done' }]);
  });

  it('rejects a malformed task param', async () => {
    const client = await connect();
    expect((await call(client, 'slow', { ttl: -5 })).error.code).toBe(-32602);
    expect((await client.request('tools/call', { name: 'slow', task: 'yes' })).error.code).toBe(-32602);
  });

  it('fails the task when the tool result is an error, and tasks/result returns that result', async () => {
    const client = await connect();
    const { taskId } = (await call(client, 'broken', {})).result.task;
    const result = await client.request('tasks/result', { taskId });
    expect(result.result).toMatchObject({ isError: true, content: [{ type: 'text', text: 'it broke' }], _meta: { [RELATED_TASK]: { taskId } } });
    const got = (await client.request('tasks/get', { taskId })).result;
    expect(got).toMatchObject({ status: 'failed', statusMessage: 'it broke' });
  });

  it('answers tasks/result with the JSON-RPC error the request ended with', async () => {
    const client = await connect();
    const { taskId } = (await call(client, 'refusing', {})).result.task;
    const result = await client.request('tasks/result', { taskId });
    expect(result.error).toEqual({ code: -32602, message: 'not like this', data: { why: 'because' } });
    expect((await client.request('tasks/get', { taskId })).result).toMatchObject({ status: 'failed', statusMessage: 'not like this' });
  });

  it('cancels a running task: its handler’s signal aborts, and a terminal task refuses cancellation', async () => {
    const client = await connect();
    const { taskId } = (await call(client, 'watch', {})).result.task;
    await sleep(10);
    const cancelled = await client.request('tasks/cancel', { taskId });
    expect(cancelled.result).toMatchObject({ taskId, status: 'cancelled', statusMessage: 'The task was cancelled by request.' });
    expect(aborted).toHaveLength(1);
    await sleep(20);
    // Finishing after the cancel changes nothing.
    expect((await client.request('tasks/get', { taskId })).result.status).toBe('cancelled');
    const again = await client.request('tasks/cancel', { taskId });
    expect(again.error).toEqual({ code: -32602, message: "Cannot cancel task: already in terminal status 'cancelled'" });
    const result = await client.request('tasks/result', { taskId });
    expect(result.error.code).toBe(-32602);
    expect(result.error.message).toMatch(/cancelled before it produced a result/);

    gate.resolve();
    const done = (await call(client, 'slow', {})).result.task.taskId;
    await client.request('tasks/result', { taskId: done });
    expect((await client.request('tasks/cancel', { taskId: done })).error.message).toBe("Cannot cancel task: already in terminal status 'completed'");
  });

  it('a cancelled tasks/result request stops waiting', async () => {
    const client = await connect();
    const { taskId } = (await call(client, 'slow', {})).result.task;
    const id = 'wait-1';
    void (client as any).transport.send({ jsonrpc: '2.0', id, method: 'tasks/result', params: { taskId } });
    await sleep(10);
    void (client as any).transport.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id } });
    await sleep(60);
    expect(client.received.some((r) => r.message.id === id)).toBe(false);
  });

  it('shows each session only its own tasks, and another session’s task is not found', async () => {
    const one = await connect();
    const two = await connect();
    const first = (await call(one, 'slow', {})).result.task.taskId;
    const second = (await call(one, 'watch', {})).result.task.taskId;
    const theirs = (await call(two, 'slow', {})).result.task.taskId;

    const listed = (await one.request('tasks/list')).result;
    expect(listed.tasks.map((t: any) => t.taskId)).toEqual([first, second]);
    expect(listed.nextCursor).toBeUndefined();
    expect((await two.request('tasks/list')).result.tasks.map((t: any) => t.taskId)).toEqual([theirs]);

    for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel']) {
      const answer = await two.request(method, { taskId: first });
      expect(answer.error).toEqual({ code: -32602, message: 'Failed to retrieve task: Task not found' });
    }
    expect(aborted).toHaveLength(0);
    expect((await one.request('tasks/get', { taskId: 'no-such-task' })).error.code).toBe(-32602);
    expect((await one.request('tasks/list', { cursor: 'bogus' })).error.code).toBe(-32602);
  });

  it('binds tasks to the principal when there is one: the same subject sees them from another session, others do not', async () => {
    const aliceOne = await connect({ principal: alice });
    const aliceTwo = await connect({ principal: alice });
    const bobs = await connect({ principal: bob });
    const taskId = (await call(aliceOne, 'slow', {})).result.task.taskId;
    expect((await aliceTwo.request('tasks/get', { taskId })).result.taskId).toBe(taskId);
    expect((await aliceTwo.request('tasks/list')).result.tasks.map((t: any) => t.taskId)).toEqual([taskId]);
    expect((await bobs.request('tasks/get', { taskId })).error.code).toBe(-32602);
    expect((await bobs.request('tasks/list')).result.tasks).toEqual([]);
  });

  it('grants the requested ttl up to the maximum, the default without one, and forgets the task after it', async () => {
    const client = await connect();
    expect((await call(client, 'slow', {})).result.task.ttl).toBe(60_000);
    expect((await call(client, 'slow', { ttl: 10_000_000 })).result.task.ttl).toBe(120_000);
    const short = (await call(client, 'slow', { ttl: 40 })).result.task;
    expect(short.ttl).toBe(40);
    await sleep(60);
    expect((await client.request('tasks/get', { taskId: short.taskId })).error).toEqual({ code: -32602, message: 'Failed to retrieve task: Task not found' });
  });

  it('ignores the task param and has no task methods before 2025-11-25', async () => {
    const client = await connect({ version: '2025-06-18' });
    gate.resolve();
    const answer = await call(client, 'slow', {});
    expect(answer.result.content).toEqual([{ type: 'text', text: 'slow done' }]);
    expect((await client.request('tasks/get', { taskId: 'x' })).error.code).toBe(-32601);
    expect((await call(client, 'must')).error.code).toBe(-32601);
  });
});

describe('tasks, protocol 2026-07-28 (extension io.modelcontextprotocol/tasks)', () => {
  const modernCall = (client: TasksClient, name: string, withTasks = true) => client.request('tools/call', { name, arguments: {}, _meta: modernMeta(withTasks) });
  const modern = (client: TasksClient, method: string, params: Record<string, unknown>) => client.request(method, { ...params, _meta: modernMeta() });

  it('advertises the extension in server/discover', async () => {
    const client = await connect({ version: 'none' });
    const discovered = await client.request('server/discover', { _meta: modernMeta(false) });
    expect(discovered.result.capabilities.extensions).toEqual({ [TASKS_EXTENSION]: {} });
    expect(discovered.result.capabilities.tasks).toBeUndefined();
  });

  it('merges the tasks extension with those of plugins, and refuses an extension advertised twice', async () => {
    const thing: Plugin = { name: 'thing', register: (host) => host.extension('com.example/thing', { level: 2 }) };
    server.plugin(thing);
    const refusal = (plugin: Plugin) => {
      try {
        server.plugin(plugin);
      } catch (error) {
        return error as { code: string; message: string };
      }
      return undefined;
    };
    expect(refusal({ name: 'tasks-again', register: (host) => host.extension(TASKS_EXTENSION, {}) })).toMatchObject({
      code: 'DUPLICATE_NAME',
      message: expect.stringMatching(/extension "io.modelcontextprotocol\/tasks" is already advertised/),
    });
    expect(refusal({ name: 'thing-again', register: (host) => host.extension('com.example/thing', {}) })).toMatchObject({ code: 'DUPLICATE_NAME' });
    expect(refusal({ name: 'whole', register: (host) => host.capability('extensions', { 'com.example/other': {} }) })).toMatchObject({ code: 'INVALID_OPTION' });

    const client = await connect({ version: 'none' });
    const discovered = await client.request('server/discover', { _meta: modernMeta(false) });
    expect(discovered.result.capabilities.extensions).toEqual({ [TASKS_EXTENSION]: {}, 'com.example/thing': { level: 2 } });
    // A handshake-era client sees the plugin's extension, and tasks as 2025-11-25 has them (not the extension).
    const legacy = await connect();
    expect(legacy.received[0].message.result.capabilities).toMatchObject({ tasks: expect.any(Object) });
    expect(legacy.received[0].message.result.capabilities.extensions).toEqual({ 'com.example/thing': { level: 2 } });
  });

  it('returns resultType "task" to a client that declared the extension; tasks/get carries the result once completed', async () => {
    const client = await connect({ version: 'none' });
    const created = (await modernCall(client, 'slow')).result;
    expect(created).toMatchObject({ resultType: 'task', status: 'working', ttlMs: 60_000, pollIntervalMs: 20 });
    expect(created.task).toBeUndefined();
    const working = (await modern(client, 'tasks/get', { taskId: created.taskId })).result;
    expect(working).toMatchObject({ resultType: 'complete', taskId: created.taskId, status: 'working' });
    expect(working.result).toBeUndefined();
    gate.resolve();
    await sleep(30);
    const done = (await modern(client, 'tasks/get', { taskId: created.taskId })).result;
    expect(done).toMatchObject({ status: 'completed', result: { content: [{ type: 'text', text: 'slow done' }] } });
  });

  it('never returns a task to a client without the extension: optional tools answer directly, required ones -32021', async () => {
    const client = await connect({ version: 'none' });
    gate.resolve();
    const direct = (await modernCall(client, 'slow', false)).result;
    expect(direct).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'slow done' }] });
    const required = await modernCall(client, 'must', false);
    expect(required.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } } });
    // A tool without task support never becomes one.
    expect((await modernCall(client, 'plain')).result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'plain' }] });
  });

  it('a tool error completes the task with an isError result; a protocol error fails it with the error', async () => {
    const client = await connect({ version: 'none' });
    const broken = (await modernCall(client, 'broken')).result.taskId;
    const refusing = (await modernCall(client, 'refusing')).result.taskId;
    await sleep(30);
    expect((await modern(client, 'tasks/get', { taskId: broken })).result).toMatchObject({ status: 'completed', result: { isError: true } });
    const failed = (await modern(client, 'tasks/get', { taskId: refusing })).result;
    expect(failed).toMatchObject({ status: 'failed', error: { code: -32602, message: 'not like this' } });
  });

  it('tasks/cancel acknowledges and aborts the handler; tasks/update acknowledges; tasks/result and tasks/list do not exist', async () => {
    const client = await connect({ version: 'none' });
    const taskId = (await modernCall(client, 'watch')).result.taskId;
    await sleep(10);
    expect((await modern(client, 'tasks/cancel', { taskId })).result).toEqual({ resultType: 'complete', _meta: expect.any(Object) });
    expect(aborted).toHaveLength(1);
    expect((await modern(client, 'tasks/get', { taskId })).result.status).toBe('cancelled');
    // Cancelling a terminal task is still acknowledged (cooperative cancellation).
    expect((await modern(client, 'tasks/cancel', { taskId })).result.resultType).toBe('complete');
    expect((await modern(client, 'tasks/update', { taskId, inputResponses: {} })).result.resultType).toBe('complete');
    expect((await modern(client, 'tasks/update', { taskId: 'unknown', inputResponses: {} })).error.code).toBe(-32602);
    expect((await modern(client, 'tasks/result', { taskId })).error.code).toBe(-32601);
    expect((await modern(client, 'tasks/list', {})).error.code).toBe(-32601);
  });

  it('keeps a principal’s tasks from other callers, and anonymous tasks from handshake sessions', async () => {
    const aliceClient = await connect({ version: 'none', principal: alice });
    const bobClient = await connect({ version: 'none', principal: bob });
    const anonymous = await connect({ version: 'none' });
    const session = await connect();
    const alices = (await modernCall(aliceClient, 'slow')).result.taskId;
    const anonymousTask = (await modernCall(anonymous, 'slow')).result.taskId;
    expect((await modern(aliceClient, 'tasks/get', { taskId: alices })).result.taskId).toBe(alices);
    expect((await modern(bobClient, 'tasks/get', { taskId: alices })).error.code).toBe(-32602);
    expect((await modern(anonymous, 'tasks/get', { taskId: alices })).error.code).toBe(-32602);
    expect((await session.request('tasks/get', { taskId: anonymousTask })).error.code).toBe(-32602);
    expect((await session.request('tasks/list')).result.tasks).toEqual([]);
  });
});

describe('a server without task tools', () => {
  it('declares no tasks capability or extension and starts no timers', async () => {
    class Plain {
      @Tool() hello(): string {
        return 'hi';
      }
    }
    const plain = new McpServer({ name: 'plain', version: '1.0.0', providers: [Plain] });
    const runtime = (plain as any).runtime.tasks;
    expect(runtime.started).toBe(false);
    const client = await TasksClient.connect(plain);
    expect(client.received[0].message.result.capabilities.tasks).toBeUndefined();
    const discovered = await client.request('server/discover', { _meta: modernMeta(false) });
    expect(discovered.result.capabilities.extensions).toBeUndefined();
    // The task param is ignored where no tool supports tasks (no capability was declared).
    expect((await client.request('tools/call', { name: 'hello', task: {} })).result.content).toEqual([{ type: 'text', text: 'hi' }]);
    expect(runtime.started).toBe(false);
    await client.close();
    await plain.close();
  });

  it('has no task methods (-32601) and never makes a store', async () => {
    class Plain {
      @Tool() hello(): string {
        return 'hi';
      }
    }
    const plain = new McpServer({ name: 'plain', version: '1.0.0', providers: [Plain] });
    try {
      const client = await TasksClient.connect(plain);
      for (const [method, params] of [
        ['tasks/list', {}],
        ['tasks/get', { taskId: 'nope' }],
        ['tasks/result', { taskId: 'nope' }],
        ['tasks/cancel', { taskId: 'nope' }],
      ] as const) {
        expect((await client.request(method, params)).error).toEqual({ code: -32601, message: `Method not found: ${method}` });
      }
      const modern = await client.request('tasks/get', { taskId: 'nope', _meta: modernMeta() });
      expect(modern.error.code).toBe(-32601);
      expect((plain as any).runtime.tasks.storeValue).toBeUndefined();
      await client.close();
    } finally {
      await plain.close();
    }
  });

  it('rejects an invalid task option at declaration', () => {
    class Wrong {
      @Tool({ task: 'sometimes' as never }) odd(): string {
        return '';
      }
    }
    expect(() => new McpServer({ name: 'x', version: '1', providers: [Wrong] })).toThrow(/task must be 'optional', 'required' or 'forbidden'/);
  });
});
