import { InMemoryTaskStore } from '@typemcp/core';
import type { TaskRecord } from '@typemcp/core';
import { taskStoreQuestionTests } from '../../../../../test-support/taskStoreQuestions';

function record(taskId: string, fields: Partial<TaskRecord> = {}): TaskRecord {
  const now = new Date().toISOString();
  return {
    taskId,
    status: 'working',
    createdAt: now,
    lastUpdatedAt: now,
    ttlMs: 60_000,
    owner: 'session:a',
    request: { method: 'tools/call', params: { name: 'slow', arguments: {} } },
    rerunnable: false,
    runner: 'r1',
    leaseUntil: Date.now() + 10_000,
    ...fields,
  };
}

describe('InMemoryTaskStore', () => {
  it('stores copies: changing what was given or returned changes nothing stored', async () => {
    const store = new InMemoryTaskStore();
    const task = record('t1');
    await store.create(task);
    task.status = 'failed';
    const read = (await store.get('t1'))!;
    expect(read.status).toBe('working');
    read.status = 'completed';
    expect((await store.get('t1'))!.status).toBe('working');
    expect(await store.get('missing')).toBeUndefined();
  });

  it('updates a task until it is terminal, then refuses every change', async () => {
    const store = new InMemoryTaskStore();
    await store.create(record('t1'));
    const updated = await store.update('t1', { statusMessage: 'halfway' });
    expect(updated).toMatchObject({ status: 'working', statusMessage: 'halfway' });
    await store.update('t1', { status: 'completed', result: { content: [] } });
    const after = await store.update('t1', { status: 'cancelled', statusMessage: 'too late' });
    expect(after).toMatchObject({ status: 'completed', statusMessage: 'halfway', result: { content: [] } });
    expect((await store.get('t1'))!.status).toBe('completed');
    expect(await store.update('missing', { status: 'failed' })).toBeUndefined();
  });

  it('never changes identity fields (id, owner, createdAt, ttl) through update', async () => {
    const store = new InMemoryTaskStore();
    await store.create(record('t1'));
    const updated = await store.update('t1', { owner: 'session:b', taskId: 'other', ttlMs: 1 });
    expect(updated).toMatchObject({ taskId: 't1', owner: 'session:a', ttlMs: 60_000 });
  });

  it('forgets a task ttlMs after its creation', async () => {
    const store = new InMemoryTaskStore();
    await store.create(record('short', { ttlMs: 30 }));
    await store.create(record('long'));
    expect(await store.get('short')).toBeDefined();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await store.get('short')).toBeUndefined();
    expect(await store.update('short', { status: 'failed' })).toBeUndefined();
    expect((await store.list('session:a', undefined, 10)).tasks.map((t) => t.taskId)).toEqual(['long']);
  });

  it('lists one owner’s tasks in pages, oldest first, and rejects a cursor it never gave', async () => {
    const store = new InMemoryTaskStore();
    for (let i = 0; i < 5; i++) await store.create(record(`a${i}`));
    await store.create(record('b0', { owner: 'session:b' }));
    const first = await store.list('session:a', undefined, 2);
    expect(first.tasks.map((t) => t.taskId)).toEqual(['a0', 'a1']);
    const second = await store.list('session:a', first.nextCursor, 2);
    expect(second.tasks.map((t) => t.taskId)).toEqual(['a2', 'a3']);
    const third = await store.list('session:a', second.nextCursor, 2);
    expect(third).toEqual({ tasks: [expect.objectContaining({ taskId: 'a4' })] });
    expect((await store.list('session:b', undefined, 10)).tasks.map((t) => t.taskId)).toEqual(['b0']);
    expect((await store.list('session:c', undefined, 10)).tasks).toEqual([]);
    await expect(store.list('session:a', 'not-a-cursor', 2)).rejects.toMatchObject({ code: -32602 });
  });

  it('renews only the leases of the tasks the runner still holds and that are not terminal', async () => {
    const store = new InMemoryTaskStore();
    await store.create(record('mine', { leaseUntil: 1 }));
    await store.create(record('theirs', { runner: 'r2', leaseUntil: 1 }));
    await store.create(record('done', { leaseUntil: 1 }));
    await store.update('done', { status: 'completed' });
    // It answers which of them the runner still holds: the runner stops its runs of the others.
    expect(await store.renew('r1', ['mine', 'theirs', 'done', 'gone'], 5000)).toEqual(['mine']);
    expect((await store.get('mine'))!.leaseUntil).toBe(5000);
    expect((await store.get('theirs'))!.leaseUntil).toBe(1);
    expect((await store.get('done'))!.leaseUntil).toBe(1);
  });

  it('claimExpired hands every non-terminal task whose lease ended to the claimer, once', async () => {
    const store = new InMemoryTaskStore();
    const now = Date.now();
    await store.create(record('expired', { leaseUntil: now - 1 }));
    await store.create(record('held', { leaseUntil: now + 10_000 }));
    await store.create(record('finished', { leaseUntil: now - 1 }));
    await store.update('finished', { status: 'failed' });
    const claimed = await store.claimExpired('r2', now, now + 10_000);
    expect(claimed.map((t) => t.taskId)).toEqual(['expired']);
    expect(claimed[0]).toMatchObject({ runner: 'r2', leaseUntil: now + 10_000 });
    expect((await store.get('expired'))!).toMatchObject({ runner: 'r2', leaseUntil: now + 10_000 });
    // Claimed already: another replica gets nothing.
    expect(await store.claimExpired('r3', now, now + 10_000)).toEqual([]);
    expect((await store.get('finished'))!.runner).toBe('r1');
  });

  it('renews and claims without parsing stored records, terminal ones included', async () => {
    const store = new InMemoryTaskStore();
    const now = Date.now();
    for (let i = 0; i < 20; i++) {
      await store.create(record(`done-${i}`, { leaseUntil: now - 1 }));
      await store.update(`done-${i}`, { status: 'completed' });
    }
    await store.create(record('held', { leaseUntil: now + 10_000 }));
    const parse = jest.spyOn(JSON, 'parse');
    try {
      expect(await store.claimExpired('r2', now, now + 10_000)).toEqual([]);
      expect(await store.renew('r1', ['held', 'done-0'], now + 20_000)).toEqual(['held']);
      expect(parse).not.toHaveBeenCalled();
    } finally {
      parse.mockRestore();
    }
    // The fields kept beside the JSON are the ones records show.
    expect(await store.get('held')).toMatchObject({ status: 'working', runner: 'r1', leaseUntil: now + 20_000 });
    await store.update('held', { leaseUntil: now - 1 });
    expect((await store.claimExpired('r2', now, now + 5)).map((t) => [t.taskId, t.runner, t.leaseUntil])).toEqual([['held', 'r2', now + 5]]);
    expect(await store.get('held')).toMatchObject({ runner: 'r2', leaseUntil: now + 5 });
  });
});

describe('InMemoryTaskStore: questions and the limit of create', () => {
  taskStoreQuestionTests(() => new InMemoryTaskStore());
});
