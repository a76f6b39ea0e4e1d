/**
 * What every TaskStore must do with a task's questions to its client (`ask`, `answer`) and with
 * the limit of `create`: one set of tests, run against each implementation.
 */
import type { TaskRecord, TaskStore } from '@typemcp/core';

function record(taskId: string, fields: Partial<TaskRecord> = {}): TaskRecord {
  const now = new Date().toISOString();
  return {
    taskId,
    status: 'working',
    createdAt: now,
    lastUpdatedAt: now,
    ttlMs: 60_000,
    owner: 'principal:alice',
    request: { method: 'tools/call', params: { name: 'slow', arguments: {} } },
    rerunnable: false,
    runner: 'r1',
    leaseUntil: Date.now() + 60_000,
    ...fields,
  };
}

/** A question whose params hold the JSON a careless store would mangle: empty arrays and objects, big numbers. */
const FORM = {
  method: 'elicitation/create',
  params: { mode: 'form', message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string', enum: [] } }, required: [], extra: {} } },
};
const ROOTS = { method: 'roots/list' };

export function taskStoreQuestionTests(makeStore: () => TaskStore): void {
  it('ask: records new questions (a key asked before keeps its question) and makes the task input_required', async () => {
    const store = makeStore();
    await store.create(record('q1'));
    const asked = await store.ask('q1', { form: FORM }, '2026-01-01T00:00:01.000Z');
    expect(asked).toMatchObject({ status: 'input_required', lastUpdatedAt: '2026-01-01T00:00:01.000Z', inputRequests: { form: FORM } });
    const again = await store.ask('q1', { form: ROOTS, roots: ROOTS }, '2026-01-01T00:00:02.000Z');
    expect(again!.inputRequests).toEqual({ form: FORM, roots: ROOTS });
    expect(await store.get('q1')).toEqual(again);
    expect(await store.ask('missing', { form: FORM }, 'x')).toBeUndefined();
  });

  it('answer: keeps answers to outstanding questions only; the task works again once none is outstanding', async () => {
    const store = makeStore();
    await store.create(record('q2'));
    await store.ask('q2', { a: FORM, b: ROOTS }, '2026-01-01T00:00:01.000Z');
    const first = await store.answer('q2', { a: { action: 'accept', content: { name: 'x', list: [] } }, never: { action: 'accept' } }, '2026-01-01T00:00:02.000Z');
    expect(first).toMatchObject({ status: 'input_required', lastUpdatedAt: '2026-01-01T00:00:02.000Z' });
    expect(first!.inputResponses).toEqual({ a: { action: 'accept', content: { name: 'x', list: [] } } });
    // Answered already: the first answer stays, and nothing changes (not even lastUpdatedAt).
    const repeated = await store.answer('q2', { a: { action: 'decline' } }, '2026-01-01T00:00:03.000Z');
    expect(repeated).toEqual(first);
    const last = await store.answer('q2', { b: { roots: [] } }, '2026-01-01T00:00:04.000Z');
    expect(last).toMatchObject({ status: 'working', inputResponses: { a: expect.any(Object), b: { roots: [] } } });
    expect(await store.answer('missing', { a: {} }, 'x')).toBeUndefined();
  });

  it('leaves a terminal task as it is; update replaces or clears the maps whole', async () => {
    const store = makeStore();
    await store.create(record('q3'));
    await store.ask('q3', { a: FORM }, 'later');
    const cleared = await store.update('q3', { status: 'working', inputRequests: { b: ROOTS } });
    expect(cleared!.inputRequests).toEqual({ b: ROOTS });
    const ended = await store.update('q3', { status: 'completed', inputRequests: undefined, inputResponses: undefined, result: { content: [] } });
    expect(ended!.inputRequests).toBeUndefined();
    expect(ended!.inputResponses).toBeUndefined();
    expect(await store.ask('q3', { c: FORM }, 'late')).toEqual(ended);
    expect(await store.answer('q3', { b: { roots: [] } }, 'late')).toEqual(ended);
  });

  it('create with a limit refuses a task when its owner already has that many that are not terminal', async () => {
    const store = makeStore();
    expect(await store.create(record('l1'), 2)).toBe(true);
    expect(await store.create(record('l2', { status: 'input_required' }), 2)).toBe(true);
    expect(await store.create(record('other', { owner: 'principal:bob' }), 2)).toBe(true);
    expect(await store.create(record('l3'), 2)).toBe(false);
    expect(await store.get('l3')).toBeUndefined();
    // Without a limit, nothing is counted.
    expect(await store.create(record('l4'))).toBe(true);
    await store.update('l1', { status: 'completed' });
    await store.update('l4', { status: 'cancelled' });
    expect(await store.create(record('l5'), 2)).toBe(true);
    expect(await store.create(record('l6'), 2)).toBe(false);
  });
}
