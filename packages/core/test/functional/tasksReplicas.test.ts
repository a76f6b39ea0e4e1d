import 'reflect-metadata';
import { cluster, Context, InMemoryBroadcaster, InMemoryEventStore, InMemorySessionStore, InMemoryTaskStore, McpServer, Tool } from '@typemcp/core';
import type { Principal } from '@typemcp/core';
import { IsString } from 'class-validator';
import { deferred, expectValidTaskMessages, modernMeta, sleep, TasksClient } from './tasksClient';

class NameForm {
  @IsString() name!: string;
}

let askRuns = 0;

let runs = 0;
let finish = deferred();
const aborts: string[] = [];

class ReplicaTools {
  @Tool({ task: 'optional', annotations: { idempotentHint: true }, description: 'Safe to run again' })
  async rerun(ctx: Context): Promise<string> {
    const run = ++runs;
    // The first run never finishes by itself: its replica goes away under it.
    if (run === 1) await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
    return `done after ${run} runs`;
  }

  @Tool({ task: 'optional', annotations: { idempotentHint: true }, description: 'Asks a name; its first run then holds until its replica goes' })
  async asking(ctx: Context): Promise<string> {
    const run = ++askRuns;
    const answer = await ctx.elicit('Your name?', NameForm);
    if (run === 1 && answer.action === 'accept' && answer.content.name === 'held') await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
    return `${answer.action === 'accept' ? answer.content.name : answer.action} after ${run} runs`;
  }

  @Tool({ task: 'optional', description: 'Not safe to run again' })
  async once(ctx: Context): Promise<string> {
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
    return 'never';
  }

  @Tool({ task: 'optional', description: 'Finishes when the test says so, unless cancelled' })
  async held(ctx: Context): Promise<string> {
    const cancelled = new Promise((resolve) =>
      ctx.signal.addEventListener('abort', () => {
        aborts.push(String((ctx.signal.reason as Error)?.message));
        resolve(undefined);
      }),
    );
    await Promise.race([finish.promise, cancelled]);
    return 'held done';
  }
}

let charges = 0;

class LeaseTools {
  @Tool({ task: 'optional', annotations: { idempotentHint: true }, description: 'Safe to run again; held until the test says so' })
  async twice(ctx: Context): Promise<string> {
    return this.hold(ctx);
  }

  @Tool({ task: 'optional', description: 'Not safe to run again; held until the test says so' })
  async charge(ctx: Context): Promise<string> {
    const done = await this.hold(ctx);
    if (!ctx.signal.aborted) charges++;
    return done;
  }

  private async hold(ctx: Context): Promise<string> {
    const aborted = new Promise((resolve) =>
      ctx.signal.addEventListener('abort', () => {
        aborts.push(String((ctx.signal.reason as Error)?.message));
        resolve(undefined);
      }),
    );
    await Promise.race([finish.promise, aborted]);
    return 'held done';
  }
}

/** A view of `store` whose renewals fail while `failing.now` is true (the store is unreachable from one replica). */
function flaky(store: InMemoryTaskStore): { store: InMemoryTaskStore; failing: { now: boolean } } {
  const failing = { now: false };
  const view = Object.create(store) as InMemoryTaskStore;
  view.renew = (...args) => (failing.now ? Promise.reject(new Error('store unreachable')) : store.renew(...args));
  return { store: view, failing };
}

/** What each lease replica reported (its onError): the failures a test expects, kept off stderr. */
const leaseReports = new Map<McpServer, string[]>();

function leaseReplica(store: InMemoryTaskStore): McpServer {
  const reports: string[] = [];
  const onError = (what: string, error: unknown) => void reports.push(`${what}: ${(error as Error).message}`);
  const server = new McpServer({ name: 'leases', version: '1.0.0', providers: [LeaseTools], tasks: { ...tuning, store }, requestState: { secret: 'replica-test-secret-0123456789' }, onError });
  leaseReports.set(server, reports);
  servers.push(server);
  // A replica serves: its task runner (leases, claims) starts then, not when it is constructed.
  server.fetchHandler();
  return server;
}

const alice: Principal = { subject: 'alice', scopes: [], claims: {} };
const tuning = { leaseMs: 120, renewIntervalMs: 30, pollIntervalMs: 1000 };

let servers: McpServer[];
let clients: TasksClient[];
let modernClients: TasksClient[];

beforeEach(() => {
  runs = 0;
  askRuns = 0;
  finish = deferred();
  aborts.length = 0;
  charges = 0;
  servers = [];
  clients = [];
  modernClients = [];
});

afterEach(async () => {
  finish.resolve();
  for (const client of clients) {
    expectValidTaskMessages('2025-11-25', client);
    await client.close();
  }
  for (const client of modernClients) {
    expectValidTaskMessages('2026-07-28', client);
    await client.close();
  }
  for (const server of servers) await server.close();
});

/** Long leases, for tests where no replica dies: a busy machine's stall must not pass a task to the other. */
const steadyLeases = { leaseMs: 10_000, renewIntervalMs: 1_000 };

function replica(store: InMemoryTaskStore, pollIntervalMs = tuning.pollIntervalMs, leases: { leaseMs: number; renewIntervalMs: number } = tuning): McpServer {
  const server = new McpServer({
    name: 'replicas',
    version: '1.0.0',
    providers: [ReplicaTools],
    tasks: { ...tuning, ...leases, pollIntervalMs, store },
    requestState: { secret: 'replica-test-secret-0123456789' },
  });
  servers.push(server);
  server.fetchHandler();
  return server;
}

async function client(server: McpServer, capabilities?: Record<string, unknown>): Promise<TasksClient> {
  const connected = await TasksClient.connect(server, { principal: alice, capabilities });
  clients.push(connected);
  return connected;
}

/** A 2026-07-28 client of `server` (alice's), sending `_meta` with the tasks extension and elicitation. */
async function modernClient(server: McpServer): Promise<(method: string, params: Record<string, unknown>) => Promise<Record<string, any>>> {
  const connected = await TasksClient.connect(server, { principal: alice, version: 'none' });
  modernClients.push(connected);
  const meta = modernMeta();
  const capabilities = { ...(meta['io.modelcontextprotocol/clientCapabilities'] as object), elicitation: {} };
  return (method, params) => connected.request(method, { ...params, _meta: { ...meta, 'io.modelcontextprotocol/clientCapabilities': capabilities } });
}

/** Two replicas sharing one task store and a broadcaster, as the cluster plugin makes them. */
function clusterOfTwo(store: InMemoryTaskStore): [McpServer, McpServer] {
  const broadcaster = new InMemoryBroadcaster();
  const stores = { sessions: new InMemorySessionStore(), events: new InMemoryEventStore(), broadcaster, tasks: store };
  const a = replica(store, tuning.pollIntervalMs, steadyLeases);
  const b = replica(store, tuning.pollIntervalMs, steadyLeases);
  a.plugin(cluster, { ...stores, replicaId: 'replica-a' });
  b.plugin(cluster, { ...stores, replicaId: 'replica-b' });
  return [a, b];
}

describe('tasks across replicas sharing one TaskStore', () => {
  it('runs an idempotent task again on another replica after its replica stopped; a non-idempotent one fails', async () => {
    const store = new InMemoryTaskStore();
    const a = replica(store, 20);
    const b = replica(store, 20);
    const onA = await client(a);
    const idempotent = (await onA.request('tools/call', { name: 'rerun', arguments: {}, task: {} })).result.task.taskId;
    const notIdempotent = (await onA.request('tools/call', { name: 'once', arguments: {}, task: {} })).result.task.taskId;
    await sleep(50);
    expect(runs).toBe(1);
    // A's lease is renewed while it runs: B claims nothing yet.
    await sleep(150);
    expect((await store.get(idempotent))!.runner).toBe(a.runtime.tasks.replicaId);

    await onA.close();
    await a.close();
    const onB = await client(b);
    const result = await onB.request('tasks/result', { taskId: idempotent });
    expect(result.result.content).toEqual([{ type: 'text', text: 'done after 2 runs' }]);
    expect((await store.get(idempotent))!.runner).toBe(b.runtime.tasks.replicaId);

    const failed = await onB.request('tasks/result', { taskId: notIdempotent });
    expect(failed.error.code).toBe(-32603);
    expect(failed.error.message).toMatch(/replica running this task stopped.*not marked idempotent.*not run again/);
    const got = (await onB.request('tasks/get', { taskId: notIdempotent })).result;
    expect(got).toMatchObject({ status: 'failed', statusMessage: expect.stringMatching(/not marked idempotent/) });
  });

  it('with a broadcaster, a cancel on one replica aborts the handler on the other, and waiters wake at once', async () => {
    const store = new InMemoryTaskStore();
    const broadcaster = new InMemoryBroadcaster();
    const a = replica(store, tuning.pollIntervalMs, steadyLeases);
    const b = replica(store, tuning.pollIntervalMs, steadyLeases);
    // The cluster plugin gives the task runtime the shared store, the broadcaster and the replica's name.
    const stores = { sessions: new InMemorySessionStore(), events: new InMemoryEventStore(), broadcaster, tasks: store };
    a.plugin(cluster, { ...stores, replicaId: 'replica-a' });
    b.plugin(cluster, { ...stores, replicaId: 'replica-b' });
    await sleep(10);
    const onA = await client(a);
    const onB = await client(b);

    const cancelled = (await onA.request('tools/call', { name: 'held', arguments: {}, task: {} })).result.task.taskId;
    expect((await store.get(cancelled))!.runner).toBe('replica-a');
    expect((await onB.request('tasks/cancel', { taskId: cancelled })).result.status).toBe('cancelled');
    await sleep(30);
    // Well before the 1 s poll: the cancel reached replica A through the broadcaster.
    expect(aborts).toEqual(['The task was cancelled']);

    const waited = (await onA.request('tools/call', { name: 'held', arguments: {}, task: {} })).result.task.taskId;
    const started = Date.now();
    const result = onB.request('tasks/result', { taskId: waited });
    await sleep(20);
    finish.resolve();
    expect((await result).result.content).toEqual([{ type: 'text', text: 'held done' }]);
    expect(Date.now() - started).toBeLessThan(500);
  });

  it('2026-07-28: a question asked by a run on one replica is answered on another; the run resumes at once', async () => {
    const store = new InMemoryTaskStore();
    const [a, b] = clusterOfTwo(store);
    const onA = await modernClient(a);
    const onB = await modernClient(b);
    const { taskId } = (await onA('tools/call', { name: 'asking', arguments: {} })).result;
    let waiting: Record<string, any> = {};
    for (let i = 0; i < 50 && waiting.status !== 'input_required'; i++, await sleep(10)) waiting = (await onB('tasks/get', { taskId })).result;
    expect(waiting.inputRequests['elicitation-1'].method).toBe('elicitation/create');
    const answered = Date.now();
    await onB('tasks/update', { taskId, inputResponses: { 'elicitation-1': { action: 'accept', content: { name: 'Ada' } } } });
    let done: Record<string, any> = {};
    for (let i = 0; i < 50 && done.status !== 'completed'; i++, await sleep(10)) done = (await onB('tasks/get', { taskId })).result;
    expect(done.result.content).toEqual([{ type: 'text', text: 'Ada after 1 runs' }]);
    // Well before the 1 s poll: the answer reached replica A through the broadcaster.
    expect(Date.now() - answered).toBeLessThan(500);
    expect((await store.get(taskId))!.runner).toBe('replica-a');
  });

  it('2025-11-25: tasks/result on another replica puts the question to the client there; the run resumes where it waits', async () => {
    const store = new InMemoryTaskStore();
    const [a, b] = clusterOfTwo(store);
    const onA = await client(a, { elicitation: {} });
    const onB = await client(b, { elicitation: {} });
    const taskId = (await onA.request('tools/call', { name: 'asking', arguments: {}, task: {} })).result.task.taskId;
    const result = onB.request('tasks/result', { taskId });
    const question = await onB.waitFor((m) => m.method === 'elicitation/create');
    onB.respond(question.id, { result: { action: 'accept', content: { name: 'Grace' } } });
    expect((await result).result.content).toEqual([{ type: 'text', text: 'Grace after 1 runs' }]);
    expect(onA.received.some((r) => r.message.method === 'elicitation/create')).toBe(false);
  });

  it('without a broadcaster, an answer given on another replica reaches the run when it re-reads its task', async () => {
    const store = new InMemoryTaskStore();
    const a = replica(store, 20);
    const b = replica(store, 20);
    const onA = await modernClient(a);
    const onB = await modernClient(b);
    const { taskId } = (await onA('tools/call', { name: 'asking', arguments: {} })).result;
    for (let i = 0; i < 50 && (await store.get(taskId))!.status !== 'input_required'; i++) await sleep(10);
    await onB('tasks/update', { taskId, inputResponses: { 'elicitation-1': { action: 'accept', content: { name: 'Lin' } } } });
    let done: Record<string, any> = {};
    for (let i = 0; i < 200 && done.status !== 'completed'; i++, await sleep(10)) done = (await onB('tasks/get', { taskId })).result;
    expect(done.result.content).toEqual([{ type: 'text', text: 'Lin after 1 runs' }]);
  });

  it('a task run again after its replica stopped gets the answers already given instead of asking again', async () => {
    const store = new InMemoryTaskStore();
    const a = replica(store, 20);
    const b = replica(store, 20);
    const onA = await modernClient(a);
    const { taskId } = (await onA('tools/call', { name: 'asking', arguments: {} })).result;
    for (let i = 0; i < 50 && (await store.get(taskId))!.status !== 'input_required'; i++) await sleep(10);
    await onA('tasks/update', { taskId, inputResponses: { 'elicitation-1': { action: 'accept', content: { name: 'held' } } } });
    await sleep(30);
    expect(askRuns).toBe(1);
    await a.close(); // its first run was holding after the answer
    const onB = await modernClient(b);
    let done: Record<string, any> = {};
    for (let i = 0; i < 100 && done.status !== 'completed'; i++, await sleep(10)) done = (await onB('tasks/get', { taskId })).result;
    expect(done.result.content).toEqual([{ type: 'text', text: 'held after 2 runs' }]);
    expect(done.inputRequests).toBeUndefined();
  });

  it('a replica that missed its renewals for a lease period stops its run once another replica took the task over', async () => {
    const shared = new InMemoryTaskStore();
    const { store: viewOfA, failing } = flaky(shared);
    const a = leaseReplica(viewOfA);
    const b = leaseReplica(shared);
    const onA = await client(a);
    const taskId = (await onA.request('tools/call', { name: 'twice', arguments: {}, task: {} })).result.task.taskId;
    await sleep(10);
    failing.now = true; // A is alive; only its renewals fail, for more than a lease period
    await sleep(250);
    expect((await shared.get(taskId))!.runner).toBe(b.runtime.tasks.replicaId);
    expect(b.runtime.tasks.runningTaskIds).toEqual([taskId]);
    failing.now = false;
    await sleep(100);
    // A's next renewal answered that it no longer holds the task: its run stopped; B's goes on alone.
    expect(a.runtime.tasks.runningTaskIds).toEqual([]);
    expect(aborts).toEqual([expect.stringMatching(/lost its lease/)]);
    // A said, each time, that its store did not answer; B had nothing to report.
    expect(new Set(leaseReports.get(a))).toEqual(new Set(['tasks: renewing or claiming leases failed: store unreachable']));
    expect(leaseReports.get(b)).toEqual([]);
    finish.resolve();
    expect((await onA.request('tasks/result', { taskId })).result.content).toEqual([{ type: 'text', text: 'held done' }]);
  });

  it('with a broadcaster, a non-idempotent run stops when the replica that claimed its task failed it', async () => {
    const shared = new InMemoryTaskStore();
    const { store: viewOfA, failing } = flaky(shared);
    const broadcaster = new InMemoryBroadcaster();
    const stores = { sessions: new InMemorySessionStore(), events: new InMemoryEventStore(), broadcaster };
    const a = leaseReplica(viewOfA);
    const b = leaseReplica(shared);
    a.plugin(cluster, { ...stores, tasks: viewOfA, replicaId: 'replica-a' });
    b.plugin(cluster, { ...stores, tasks: shared, replicaId: 'replica-b' });
    const onA = await client(a);
    const taskId = (await onA.request('tools/call', { name: 'charge', arguments: {}, task: {} })).result.task.taskId;
    await sleep(10);
    failing.now = true; // and stays so: only B's status message tells A
    await sleep(250);
    expect((await shared.get(taskId))!).toMatchObject({ status: 'failed', statusMessage: expect.stringMatching(/not marked idempotent/) });
    expect(a.runtime.tasks.runningTaskIds).toEqual([]);
    expect(aborts).toEqual([expect.stringMatching(/lost its lease/)]);
    finish.resolve();
    await sleep(20);
    expect(charges).toBe(0);
    expect(new Set(leaseReports.get(a))).toEqual(new Set(['tasks: renewing or claiming leases failed: store unreachable']));
    expect(leaseReports.get(b)).toEqual([]);
  });
});
