import 'reflect-metadata';
import { IsBoolean, IsOptional, IsString } from 'class-validator';
import { Context, McpServer, Tool } from '@typemcp/core';
import type { Principal } from '@typemcp/core';
import { deferred, expectValidTaskMessages, modernMeta, RELATED_TASK, sleep, TasksClient, TASKS_EXTENSION } from './tasksClient';

class NameForm {
  @IsString() name!: string;
}

class ConfirmForm {
  @IsBoolean() confirm!: boolean;
}

class MaybeForm {
  @IsOptional() @IsString() name?: string;
}

class MaybeInput {
  @IsOptional() @IsString() name?: string;
}

let release = deferred();
const seen: string[] = [];

class AskingTools {
  @Tool({ task: 'optional', description: 'Asks a name from the task, then greets' })
  async greet(ctx: Context): Promise<string> {
    const answer = await ctx.elicit('Who are you?', NameForm);
    return answer.action === 'accept' ? `Hello, ${answer.content.name}!` : `No name (${answer.action})`;
  }

  @Tool({ task: 'optional', description: 'Asks two questions at once' })
  async both(ctx: Context): Promise<string> {
    const [first, second] = await Promise.all([ctx.elicit('First?', MaybeForm), ctx.elicit('Second?', MaybeForm, { key: 'second' })]);
    const show = (answer: typeof first) => (answer.action === 'accept' ? (answer.content.name ?? '-') : answer.action);
    return `${show(first)} and ${show(second)}`;
  }

  @Tool({ task: 'optional', description: 'Asks the model, then the roots' })
  async model(ctx: Context): Promise<string> {
    const sampled = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'Say hi' } }], maxTokens: 10 });
    const roots = await ctx.roots();
    const text = Array.isArray(sampled.content) ? '' : sampled.content.type === 'text' ? sampled.content.text : '';
    return `${text} / ${roots.map((root) => root.uri).join(',')}`;
  }

  @Tool({ task: 'optional', description: 'Holds until released' })
  async hold(): Promise<string> {
    await release.promise;
    return 'released';
  }

  @Tool({ task: 'required', taskStart: 'continueAsTask', description: 'Asks within the call, then goes on as a task' })
  async later(ctx: Context): Promise<string> {
    const answer = await ctx.elicit('Your name?', NameForm, { key: 'user_name' });
    seen.push('before');
    await ctx.continueAsTask();
    seen.push('after');
    const confirm = await ctx.elicit('Sure?', ConfirmForm);
    return `${answer.action === 'accept' ? answer.content.name : '?'} ${confirm.action === 'accept' ? confirm.content.confirm : confirm.action}`;
  }

  @Tool({ task: 'optional', taskStart: 'continueAsTask', description: 'Hands off only when asked to' })
  async maybe(input: MaybeInput, ctx: Context): Promise<string> {
    if (input.name === 'task') await ctx.continueAsTask();
    return `maybe ${input.name ?? 'direct'}`;
  }
}

const alice: Principal = { subject: 'alice', scopes: [], claims: {} };

let server: McpServer;
let clients: Array<{ client: TasksClient; version: string }>;

beforeEach(() => {
  release = deferred();
  seen.length = 0;
  clients = [];
  server = new McpServer({ name: 'asking', version: '1.0.0', providers: [AskingTools], tasks: { pollIntervalMs: 20, maxActivePerCaller: 3 } });
});

afterEach(async () => {
  release.resolve();
  for (const { client, version } of clients) {
    expectValidTaskMessages(version, client);
    await client.close();
  }
  await server.close();
});

async function connect(version: '2025-11-25' | '2026-07-28', principal?: Principal): Promise<TasksClient> {
  const client = await TasksClient.connect(server, { version: version === '2026-07-28' ? 'none' : version, principal });
  clients.push({ client, version });
  return client;
}

/** The `_meta` of a 2026-07-28 request declaring the tasks extension and the client features. */
function meta(withTasks = true): Record<string, unknown> {
  const base = modernMeta(withTasks);
  const caps = base['io.modelcontextprotocol/clientCapabilities'] as Record<string, unknown>;
  return { ...base, 'io.modelcontextprotocol/clientCapabilities': { ...caps, elicitation: {}, sampling: {}, roots: {} } };
}

const modern = (client: TasksClient, method: string, params: Record<string, unknown>, withTasks = true) =>
  client.request(method, { ...params, _meta: meta(withTasks) });

/** Polls tasks/get (2026-07-28) until `done` holds for the task. */
async function until(client: TasksClient, taskId: string, done: (task: Record<string, any>) => boolean): Promise<Record<string, any>> {
  for (let i = 0; i < 200; i++) {
    const task = (await modern(client, 'tasks/get', { taskId })).result;
    if (done(task)) return task;
    await sleep(10);
  }
  throw new Error(`task ${taskId} never got there`);
}

describe('a 2026-07-28 task asks its client (tasks extension)', () => {
  it('waits input_required with the question under inputRequests; tasks/update answers it and the task completes', async () => {
    const client = await connect('2026-07-28');
    const created = (await modern(client, 'tools/call', { name: 'greet', arguments: {} })).result;
    expect(created).toMatchObject({ resultType: 'task', status: 'working' });
    const waiting = await until(client, created.taskId, (task) => task.status === 'input_required');
    expect(waiting.inputRequests).toEqual({
      'elicitation-1': { method: 'elicitation/create', params: { mode: 'form', message: 'Who are you?', requestedSchema: expect.objectContaining({ required: ['name'] }) } },
    });
    const ack = await modern(client, 'tasks/update', { taskId: created.taskId, inputResponses: { 'elicitation-1': { action: 'accept', content: { name: 'Ada' } } } });
    expect(ack.result).toEqual({ resultType: 'complete', _meta: expect.any(Object) });
    const done = await until(client, created.taskId, (task) => task.status === 'completed');
    expect(done.result.content).toEqual([{ type: 'text', text: 'Hello, Ada!' }]);
    expect(done.inputRequests).toBeUndefined();
  });

  it('keeps two questions outstanding together and takes their answers one at a time; unknown and repeated keys are ignored', async () => {
    const client = await connect('2026-07-28');
    const { taskId } = (await modern(client, 'tools/call', { name: 'both', arguments: {} })).result;
    const waiting = await until(client, taskId, (task) => Object.keys(task.inputRequests ?? {}).length === 2);
    expect(Object.keys(waiting.inputRequests).sort()).toEqual(['elicitation-1', 'second']);
    await modern(client, 'tasks/update', { taskId, inputResponses: { second: { action: 'accept', content: { name: 'two' } }, nonsense: { action: 'accept' } } });
    const half = (await modern(client, 'tasks/get', { taskId })).result;
    expect(half.status).toBe('input_required');
    expect(Object.keys(half.inputRequests)).toEqual(['elicitation-1']);
    // An answer to a key already answered changes nothing.
    await modern(client, 'tasks/update', { taskId, inputResponses: { second: { action: 'accept', content: { name: 'changed' } } } });
    await modern(client, 'tasks/update', { taskId, inputResponses: { 'elicitation-1': { action: 'decline' } } });
    const done = await until(client, taskId, (task) => task.status === 'completed');
    expect(done.result.content[0].text).toBe('decline and two');
  });

  it('asks for sampling and roots the same way', async () => {
    const client = await connect('2026-07-28');
    const { taskId } = (await modern(client, 'tools/call', { name: 'model', arguments: {} })).result;
    const sampling = await until(client, taskId, (task) => task.status === 'input_required');
    expect(sampling.inputRequests['sampling-1']).toMatchObject({ method: 'sampling/createMessage', params: { maxTokens: 10 } });
    await modern(client, 'tasks/update', {
      taskId,
      inputResponses: { 'sampling-1': { role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'm' } },
    });
    const roots = await until(client, taskId, (task) => task.inputRequests?.['roots-1'] !== undefined);
    expect(roots.inputRequests).toEqual({ 'roots-1': { method: 'roots/list' } });
    await modern(client, 'tasks/update', { taskId, inputResponses: { 'roots-1': { roots: [{ uri: 'file:///work' }] } } });
    expect((await until(client, taskId, (task) => task.status === 'completed')).result.content[0].text).toBe('hi / file:///work');
  });

  it('refuses the task methods to a caller without the extension (-32021), a malformed update (-32602), and another caller’s task (-32602)', async () => {
    const client = await connect('2026-07-28', alice);
    const other = await connect('2026-07-28');
    const { taskId } = (await modern(client, 'tools/call', { name: 'greet', arguments: {} })).result;
    for (const [method, params] of [
      ['tasks/get', { taskId }],
      ['tasks/update', { taskId, inputResponses: {} }],
      ['tasks/cancel', { taskId }],
    ] as const) {
      const refused = await modern(client, method, params, false);
      expect(refused.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } } });
    }
    expect((await modern(client, 'tasks/update', { taskId })).error).toMatchObject({ code: -32602, message: expect.stringContaining('"inputResponses"') });
    expect((await modern(client, 'tasks/update', { taskId, inputResponses: { 'elicitation-1': 'yes' } })).error).toMatchObject({
      code: -32602,
      message: 'inputResponses["elicitation-1"] must be a result object',
    });
    expect((await modern(other, 'tasks/update', { taskId, inputResponses: {} })).error).toMatchObject({ code: -32602, message: 'Failed to retrieve task: Task not found' });
    expect((await modern(client, 'tasks/get', { taskId: 'no-such-task' })).error.code).toBe(-32602);
    // Still served after all that.
    expect((await modern(client, 'tasks/get', { taskId })).result.taskId).toBe(taskId);
  });

  it('a cancelled task stops waiting for its answer; a later answer is acknowledged and ignored', async () => {
    const client = await connect('2026-07-28');
    const { taskId } = (await modern(client, 'tools/call', { name: 'greet', arguments: {} })).result;
    await until(client, taskId, (task) => task.status === 'input_required');
    await modern(client, 'tasks/cancel', { taskId });
    expect((await modern(client, 'tasks/update', { taskId, inputResponses: { 'elicitation-1': { action: 'accept', content: { name: 'late' } } } })).result.resultType).toBe('complete');
    const cancelled = (await modern(client, 'tasks/get', { taskId })).result;
    expect(cancelled).toMatchObject({ status: 'cancelled' });
    expect(cancelled.inputRequests).toBeUndefined();
    expect((server as any).runtime.tasks.runningTaskIds).toEqual([]);
  });
});

describe('ctx.continueAsTask(): asking within the call, then going on as a task', () => {
  it('2026-07-28: the first round is input_required with no task; the answered round becomes a task that asks in turn', async () => {
    const client = await connect('2026-07-28');
    const first = (await modern(client, 'tools/call', { name: 'later', arguments: {} })).result;
    expect(first).toMatchObject({ resultType: 'input_required', inputRequests: { user_name: { method: 'elicitation/create' } } });
    expect(first.taskId).toBeUndefined();
    const second = (
      await modern(client, 'tools/call', {
        name: 'later',
        arguments: {},
        inputResponses: { user_name: { action: 'accept', content: { name: 'Alice' } } },
        requestState: first.requestState,
      })
    ).result;
    expect(second).toMatchObject({ resultType: 'task', status: 'working' });
    expect(second.requestState).toBeUndefined();
    const waiting = await until(client, second.taskId, (task) => task.status === 'input_required');
    expect(Object.keys(waiting.inputRequests)).toEqual(['elicitation-1']);
    await modern(client, 'tasks/update', { taskId: second.taskId, inputResponses: { 'elicitation-1': { action: 'accept', content: { confirm: true } } } });
    expect((await until(client, second.taskId, (task) => task.status === 'completed')).result.content[0].text).toBe('Alice true');
    // The first round ended at the question; the second ran on into the task.
    expect(seen).toEqual(['before', 'after']);
  });

  it('2026-07-28: a method that returns before handing off answers the call itself; without the extension nothing is handed off', async () => {
    const client = await connect('2026-07-28');
    expect((await modern(client, 'tools/call', { name: 'maybe', arguments: {} })).result).toMatchObject({ resultType: 'complete', content: [{ text: 'maybe direct' }] });
    const task = (await modern(client, 'tools/call', { name: 'maybe', arguments: { name: 'task' } })).result;
    expect(task.resultType).toBe('task');
    expect((await until(client, task.taskId, (found) => found.status === 'completed')).result.content[0].text).toBe('maybe task');
    expect((await modern(client, 'tools/call', { name: 'maybe', arguments: { name: 'task' } }, false)).result).toMatchObject({
      resultType: 'complete',
      content: [{ text: 'maybe task' }],
    });
  });

  it('2025-11-25: a call asking for a task gets one, handed off or not', async () => {
    const client = await connect('2025-11-25');
    const direct = (await client.request('tools/call', { name: 'maybe', arguments: {}, task: {} })).result;
    expect(direct.task).toMatchObject({ status: expect.any(String) });
    const result = await client.request('tasks/result', { taskId: direct.task.taskId });
    expect(result.result.content).toEqual([{ type: 'text', text: 'maybe direct' }]);
    const handed = (await client.request('tools/call', { name: 'maybe', arguments: { name: 'task' }, task: {} })).result;
    expect((await client.request('tasks/result', { taskId: handed.task.taskId })).result.content[0].text).toBe('maybe task');
  });
});

describe('a 2025-11-25 task asks its client through tasks/result', () => {
  it('goes input_required; tasks/result puts the question with the related-task _meta, and returns the result once answered', async () => {
    const client = await TasksClient.connect(server, { capabilities: { elicitation: {} } });
    clients.push({ client, version: '2025-11-25' });
    const created = (await client.request('tools/call', { name: 'greet', arguments: {}, task: {} })).result.task;
    await client.waitFor((m) => m.method === 'notifications/tasks/status' && m.params.status === 'input_required');
    expect((await client.request('tasks/get', { taskId: created.taskId })).result.status).toBe('input_required');
    const result = client.request('tasks/result', { taskId: created.taskId });
    const question = await client.waitFor((m) => m.method === 'elicitation/create');
    expect(question.params).toMatchObject({ mode: 'form', message: 'Who are you?', _meta: { [RELATED_TASK]: { taskId: created.taskId } } });
    client.respond(question.id, { result: { action: 'accept', content: { name: 'Grace' } } });
    expect((await result).result).toMatchObject({ content: [{ type: 'text', text: 'Hello, Grace!' }], _meta: { [RELATED_TASK]: { taskId: created.taskId } } });
  });

  it('a client error to the question reaches the tool; unhandled, it fails the task with that error', async () => {
    const client = await TasksClient.connect(server, { capabilities: { elicitation: {} } });
    clients.push({ client, version: '2025-11-25' });
    const created = (await client.request('tools/call', { name: 'greet', arguments: {}, task: {} })).result.task;
    const result = client.request('tasks/result', { taskId: created.taskId });
    const question = await client.waitFor((m) => m.method === 'elicitation/create');
    client.respond(question.id, { error: { code: -32603, message: 'the form broke' } });
    expect((await result).error).toEqual({ code: -32603, message: 'the form broke' });
    expect((await client.request('tasks/get', { taskId: created.taskId })).result).toMatchObject({ status: 'failed', statusMessage: 'the form broke' });
  });
});

describe('the limit of tasks per caller', () => {
  it('refuses a task past maxActivePerCaller with -32600, per caller, and allows one again once a task ended', async () => {
    const client = await connect('2026-07-28', alice);
    const bob = await connect('2026-07-28', { subject: 'bob', scopes: [], claims: {} });
    const held: string[] = [];
    for (let i = 0; i < 3; i++) held.push((await modern(client, 'tools/call', { name: 'hold', arguments: {} })).result.taskId);
    const refused = await modern(client, 'tools/call', { name: 'hold', arguments: {} });
    expect(refused.error).toEqual({ code: -32600, message: 'Too many tasks in progress for this caller (at most 3); wait for one to end, or cancel one with tasks/cancel' });
    expect((await modern(bob, 'tools/call', { name: 'hold', arguments: {} })).result.resultType).toBe('task');
    await modern(client, 'tasks/cancel', { taskId: held[0] });
    expect((await modern(client, 'tools/call', { name: 'hold', arguments: {} })).result.resultType).toBe('task');
  });

  it('refuses an invalid limit at construction', () => {
    expect(() => new McpServer({ name: 'x', version: '1', providers: [AskingTools], tasks: { maxActivePerCaller: 0 } })).toThrow(
      'McpServer: tasks.maxActivePerCaller must be a positive integer, not 0',
    );
  });
});

describe('notifications/tasks on subscriptions/listen (2026-07-28)', () => {
  it('acknowledges the caller’s own tasks and sends each change of them, the first at once, until they end', async () => {
    const client = await connect('2026-07-28', alice);
    const stranger = await connect('2026-07-28');
    const { taskId } = (await modern(client, 'tools/call', { name: 'greet', arguments: {} })).result;
    const theirs = (await modern(stranger, 'tools/call', { name: 'hold', arguments: {} })).result.taskId;
    // The stream stays open: its request is never answered here.
    modern(client, 'subscriptions/listen', { notifications: { taskIds: [taskId, theirs, 'unknown'] } }).catch(() => undefined);
    const ack = await client.waitFor((m) => m.method === 'notifications/subscriptions/acknowledged');
    expect(ack.params.notifications).toEqual({ taskIds: [taskId] });
    const subscription = ack.params._meta['io.modelcontextprotocol/subscriptionId'];
    const waiting = await client.waitFor((m) => m.method === 'notifications/tasks' && m.params.status === 'input_required');
    expect(waiting.params).toMatchObject({ taskId, inputRequests: { 'elicitation-1': { method: 'elicitation/create' } }, _meta: { 'io.modelcontextprotocol/subscriptionId': subscription } });
    await modern(client, 'tasks/update', { taskId, inputResponses: { 'elicitation-1': { action: 'accept', content: { name: 'Lin' } } } });
    const done = await client.waitFor((m) => m.method === 'notifications/tasks' && m.params.status === 'completed');
    expect(done.params.result.content[0].text).toBe('Hello, Lin!');
    const forTheirs = client.received.filter((r) => r.message.method === 'notifications/tasks' && r.message.params.taskId === theirs);
    expect(forTheirs).toEqual([]);
  });

  it('refuses taskIds from a caller without the extension (-32021) and a malformed list (-32602)', async () => {
    const client = await connect('2026-07-28');
    const refused = await modern(client, 'subscriptions/listen', { notifications: { taskIds: ['x'] } }, false);
    expect(refused.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } } });
    expect((await modern(client, 'subscriptions/listen', { notifications: { taskIds: 'x' } })).error.code).toBe(-32602);
  });
});
