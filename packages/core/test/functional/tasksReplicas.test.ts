import 'reflect-metadata';
import { cluster, Context, InMemoryBroadcaster, InMemoryEventStore, InMemorySessionStore, InMemoryTaskStore, McpServer, Tool } from '@typemcp/core';
import type { Principal } from '@typemcp/core';
import { deferred, expectValidTaskMessages, sleep, TasksClient } from './tasksClient';

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

function leaseReplica(store: InMemoryTaskStore): McpServer {
  const server = new McpServer({ name: 'leases', version: '1.0.0', providers: [LeaseTools], tasks: { ...tuning, store }, requestState: { secret: 'replica-test-secret-0123456789' } });
  servers.push(server);
  return server;
}

const alice: Principal = { subject: 'alice', scopes: [], claims: {} };
const tuning = { leaseMs: 120, renewIntervalMs: 30, pollIntervalMs: 1000 };

let servers: McpServer[];
let clients: TasksClient[];

beforeEach(() => {
  runs = 0;
  finish = deferred();
  aborts.length = 0;
  charges = 0;
  servers = [];
  clients = [];
});

afterEach(async () => {
  finish.resolve();
  for (const client of clients) {
    expectValidTaskMessages('2025-11-25', client);
    await client.close();
  }
  for (const server of servers) await server.close();
});

function replica(store: InMemoryTaskStore, pollIntervalMs = tuning.pollIntervalMs): McpServer {
  const server = new McpServer({
    name: 'replicas',
    version: '1.0.0',
    providers: [ReplicaTools],
    tasks: { ...tuning, pollIntervalMs, store },
    requestState: { secret: 'replica-test-secret-0123456789' },
  });
  servers.push(server);
  return server;
}

async function client(server: McpServer): Promise<TasksClient> {
  const connected = await TasksClient.connect(server, { principal: alice });
  clients.push(connected);
  return connected;
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
    const a = replica(store);
    const b = replica(store);
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
  });
});
