import { InvalidParamsError } from '@typemcp/core';
import type { TaskRecord } from '@typemcp/core';
import { RedisTaskStore } from '@typemcp/redis';
import { taskStoreQuestionTests } from '../../../test-support/taskStoreQuestions';
import { sleep, useRedis } from './redisTestSupport';

const redis = useRedis();

function task(taskId: string, changes: Partial<TaskRecord> = {}): TaskRecord {
  const now = new Date().toISOString();
  return {
    taskId,
    status: 'working',
    createdAt: now,
    lastUpdatedAt: now,
    ttlMs: 60_000,
    pollIntervalMs: 500,
    owner: 'alice',
    request: { method: 'tools/call', params: { name: 'slow', arguments: { list: [], empty: {}, big: 2 ** 53 - 1, f: 0.1 } } },
    rerunnable: true,
    runner: 'r1',
    leaseUntil: Date.now() + 60_000,
    ...changes,
  };
}

function store(keyPrefix: string): RedisTaskStore {
  return new RedisTaskStore(redis.client(), { keyPrefix });
}

it('gives back a copy of what was created, exactly (empty arrays and objects, numbers)', async () => {
  const tasks = store(redis.prefix());
  const created = task('t1');
  await tasks.create(created);
  const read = await tasks.get('t1');
  expect(read).toEqual(created);
  expect(read).not.toBe(created);
  expect(await tasks.get('unknown')).toBeUndefined();
});

it('update merges changes, keeps taskId, owner, createdAt and ttlMs, and is undefined for unknown tasks', async () => {
  const keyPrefix = redis.prefix();
  const a = store(keyPrefix);
  const b = store(keyPrefix);
  const created = task('u', { statusMessage: 'starting' });
  await a.create(created);
  const updated = await b.update('u', { status: 'input_required', statusMessage: undefined, lastUpdatedAt: 'later', taskId: 'other', owner: 'mallory', createdAt: 'x', ttlMs: 1 });
  const expected: Partial<TaskRecord> = { ...created, status: 'input_required', lastUpdatedAt: 'later' };
  delete expected.statusMessage;
  expect(updated).toEqual(expected);
  expect(await a.get('u')).toEqual(expected);
  expect(await a.update('gone', { status: 'completed' })).toBeUndefined();
});

it('never changes a terminal task again', async () => {
  const tasks = store(redis.prefix());
  await tasks.create(task('done'));
  const result = { content: [{ type: 'text', text: 'ok' }], structuredContent: { values: [] } };
  const completed = await tasks.update('done', { status: 'completed', result });
  expect(completed).toMatchObject({ status: 'completed', result });
  expect(await tasks.update('done', { status: 'failed', error: { code: 1, message: 'late' } })).toEqual(completed);
  expect(await tasks.get('done')).toEqual(completed);
  await tasks.create(task('born-cancelled', { status: 'cancelled' }));
  expect(await tasks.update('born-cancelled', { status: 'working' })).toMatchObject({ status: 'cancelled' });
});

it('expires a task ttlMs after its creation, whatever updates it got', async () => {
  const tasks = store(redis.prefix());
  await tasks.create(task('brief', { createdAt: new Date(Date.now() - 900).toISOString(), ttlMs: 1000 }));
  await tasks.create(task('old', { createdAt: new Date(Date.now() - 5000).toISOString(), ttlMs: 1000 }));
  expect(await tasks.get('old')).toBeUndefined();
  expect(await tasks.update('brief', { statusMessage: 'still here' })).toMatchObject({ statusMessage: 'still here' });
  await sleep(150);
  expect(await tasks.get('brief')).toBeUndefined();
  expect(await tasks.update('brief', { status: 'completed' })).toBeUndefined();
  expect((await tasks.list('alice', undefined, 10)).tasks).toEqual([]);
});

it('lists the tasks of one owner, oldest first, a page at a time with an opaque cursor', async () => {
  const keyPrefix = redis.prefix();
  const a = store(keyPrefix);
  const b = store(keyPrefix);
  for (let n = 0; n < 7; n++) await (n % 2 ? a : b).create(task(`t${n}`, { owner: n === 3 ? 'bob' : 'alice' }));
  const first = await a.list('alice', undefined, 4);
  expect(first.tasks.map((t) => t.taskId)).toEqual(['t0', 't1', 't2', 't4']);
  expect(typeof first.nextCursor).toBe('string');
  const second = await b.list('alice', first.nextCursor, 4);
  expect(second).toEqual({ tasks: [task('t5', second.tasks[0]), task('t6', second.tasks[1])] });
  expect(second.tasks.map((t) => t.taskId)).toEqual(['t5', 't6']);
  expect((await a.list('bob', undefined, 10)).tasks.map((t) => t.taskId)).toEqual(['t3']);
  expect(await a.list('nobody', undefined, 10)).toEqual({ tasks: [] });
  // Exactly a page: no cursor, as in memory.
  expect((await a.list('alice', undefined, 6)).nextCursor).toBeUndefined();
  await expect(a.list('alice', 'not-a-cursor', 4)).rejects.toThrow(InvalidParamsError);
  await expect(a.list('alice', 'not-a-cursor', 4)).rejects.toThrow('Invalid cursor for tasks/list: "not-a-cursor" was not returned by this server');
});

it('lists past many expired tasks', async () => {
  const tasks = store(redis.prefix());
  const past = new Date(Date.now() - 10_000).toISOString();
  for (let n = 0; n < 250; n++) await tasks.create(task(`gone${n}`, { createdAt: past, ttlMs: 1000 }));
  await tasks.create(task('alive'));
  expect((await tasks.list('alice', undefined, 5)).tasks.map((t) => t.taskId)).toEqual(['alive']);
});

it('renew extends the leases of the runner’s own, unfinished tasks only', async () => {
  const tasks = store(redis.prefix());
  const lease = Date.now() + 1000;
  await tasks.create(task('mine', { leaseUntil: lease }));
  await tasks.create(task('theirs', { runner: 'r2', leaseUntil: lease }));
  await tasks.create(task('finished', { status: 'completed', leaseUntil: lease }));
  // One round trip answers which tasks the runner still holds.
  expect(await tasks.renew('r1', ['mine', 'theirs', 'finished', 'missing'], lease + 5000)).toEqual(['mine']);
  expect((await tasks.get('mine'))!.leaseUntil).toBe(lease + 5000);
  expect((await tasks.get('theirs'))!.leaseUntil).toBe(lease);
  expect((await tasks.get('finished'))!.leaseUntil).toBe(lease);
  expect(await tasks.renew('r1', [], 0)).toEqual([]);
});

it('claimExpired gives the runner every unfinished task whose lease ended before now, already updated', async () => {
  const tasks = store(redis.prefix());
  const now = Date.now();
  await tasks.create(task('expired', { runner: 'dead', leaseUntil: now - 1 }));
  await tasks.create(task('at-now', { runner: 'alive', leaseUntil: now }));
  await tasks.create(task('future', { runner: 'alive', leaseUntil: now + 10_000 }));
  await tasks.create(task('completed', { runner: 'dead', status: 'completed', leaseUntil: now - 1 }));
  await tasks.create(task('later-done', { runner: 'dead', leaseUntil: now - 1 }));
  await tasks.update('later-done', { status: 'failed' });
  await tasks.create(task('moved', { runner: 'alive', leaseUntil: now + 10_000 }));
  await tasks.update('moved', { leaseUntil: now - 5 });
  const claimed = await tasks.claimExpired('me', now, now + 30_000);
  expect(claimed.map((t) => t.taskId).sort()).toEqual(['expired', 'moved']);
  for (const t of claimed) {
    expect(t).toMatchObject({ runner: 'me', leaseUntil: now + 30_000 });
    expect(await tasks.get(t.taskId)).toEqual(t);
  }
  expect(await tasks.claimExpired('me', now, now + 30_000)).toEqual([]);
  expect((await tasks.claimExpired('other', now + 30_001, now + 60_000)).map((t) => t.taskId).sort()).toEqual(['at-now', 'expired', 'future', 'moved']);
});

it('two replicas racing claimExpired never claim the same task', async () => {
  const keyPrefix = redis.prefix();
  const setup = store(keyPrefix);
  const now = Date.now();
  for (let n = 0; n < 100; n++) await setup.create(task(`race${n}`, { runner: 'dead', leaseUntil: now - 1 - n }));
  const replicas = [store(keyPrefix), store(keyPrefix), store(keyPrefix)];
  const results = await Promise.all(
    Array.from({ length: 30 }, (_, n) => replicas[n % 3].claimExpired(`r${n % 3}`, now, now + 60_000).then((claimed) => claimed.map((t) => [t.taskId, t.runner]))),
  );
  const all = results.flat();
  expect(all).toHaveLength(100);
  expect(new Set(all.map(([id]) => id)).size).toBe(100);
  for (const [taskId, runner] of all) expect((await setup.get(taskId!))!.runner).toBe(runner);
});

it('a task created again replaces the old one, under its new owner', async () => {
  const tasks = store(redis.prefix());
  await tasks.create(task('again', { owner: 'alice' }));
  await tasks.create(task('again', { owner: 'bob', statusMessage: 'second' }));
  expect(await tasks.get('again')).toMatchObject({ owner: 'bob', statusMessage: 'second' });
  expect((await tasks.list('alice', undefined, 10)).tasks).toEqual([]);
  expect((await tasks.list('bob', undefined, 10)).tasks.map((t) => t.taskId)).toEqual(['again']);
});

describe('questions and the limit of create', () => {
  taskStoreQuestionTests(() => store(redis.prefix()));
});
