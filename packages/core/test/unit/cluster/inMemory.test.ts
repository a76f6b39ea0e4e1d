import { InMemoryBroadcaster, InMemoryEventStore, InMemorySessionStore } from '../../../src/cluster';
import type { ClusterMessage, SessionRecord } from '../../../src/cluster';

const record = (id: string): SessionRecord => ({
  id,
  state: 'ready',
  protocolVersion: '2025-11-25',
  clientCapabilities: { sampling: {} },
  clientInfo: { name: 'c', version: '1' },
  subscriptions: ['a://b'],
  owner: 'alice',
});

describe('InMemorySessionStore', () => {
  afterEach(() => jest.useRealTimers());

  it('keeps records as copies, expires them, extends them on touch and forgets deleted ones', async () => {
    jest.useFakeTimers({ now: 1_000 });
    const store = new InMemorySessionStore();
    const original = record('s1');
    await store.set(original, 100);
    const read = (await store.get('s1'))!;
    expect(read).toEqual(original);
    read.subscriptions.push('changed');
    expect((await store.get('s1'))!.subscriptions).toEqual(['a://b']);

    jest.setSystemTime(1_090);
    expect(await store.touch('s1', 100)).toBe(true);
    jest.setSystemTime(1_150);
    expect(await store.get('s1')).toBeDefined(); // touched at 1090: lives until 1190
    jest.setSystemTime(1_190);
    expect(await store.get('s1')).toBeUndefined();
    expect(await store.touch('s1', 100)).toBe(false);

    await store.set(record('s2'), 1_000);
    await store.delete('s2');
    expect(await store.get('s2')).toBeUndefined();
    expect(await store.get('never')).toBeUndefined();
  });
});

describe('InMemoryBroadcaster', () => {
  const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

  it('delivers to every subscriber of the topic later, each with its own copy, in order; unsubscribed ones hear nothing', async () => {
    const broadcaster = new InMemoryBroadcaster();
    const first: ClusterMessage[] = [];
    const second: ClusterMessage[] = [];
    const other: ClusterMessage[] = [];
    const stopFirst = await broadcaster.subscribe('t', (m) => void first.push(m));
    await broadcaster.subscribe('t', (m) => void second.push(m));
    await broadcaster.subscribe('u', (m) => void other.push(m));
    const message = { n: 1, nested: { a: [1] } };
    await broadcaster.publish('t', message);
    expect(first).toEqual([]); // not synchronously
    await broadcaster.publish('t', { n: 2 });
    await tick();
    await tick();
    expect(first).toEqual([{ n: 1, nested: { a: [1] } }, { n: 2 }]);
    expect(second).toEqual(first);
    expect(first[0]).not.toBe(second[0]);
    expect(first[0]).not.toBe(message);
    expect(other).toEqual([]);

    await stopFirst();
    await broadcaster.publish('t', { n: 3 });
    await tick();
    expect(first).toHaveLength(2);
    expect(second).toHaveLength(3);
  });
});

describe('InMemorySessionStore.replace', () => {
  it('writes only when the stored version is the one expected', async () => {
    const store = new InMemorySessionStore();
    const base = { id: 's', state: 'ready' as const, protocolVersion: '2025-11-25', clientCapabilities: {}, subscriptions: [] };
    expect(await store.replace({ ...base, version: 1 }, 60_000, 2)).toBe(false);
    expect(await store.replace({ ...base, version: 1 }, 60_000, undefined)).toBe(true);
    expect(await store.replace({ ...base, version: 2, subscriptions: ['a://x'] }, 60_000, 1)).toBe(true);
    expect(await store.replace({ ...base, version: 2, subscriptions: ['a://y'] }, 60_000, 1)).toBe(false);
    expect((await store.get('s'))!.subscriptions).toEqual(['a://x']);
  });
});

describe('InMemoryEventStore', () => {
  const note = (n: number) => ({ jsonrpc: '2.0' as const, method: 'notifications/message', params: { level: 'info', data: n } });
  const replay = (store: InMemoryEventStore, after: string) => {
    const sent: Array<[string, unknown]> = [];
    const streamId = store.replayAfter(after, (id, message) => void sent.push([id, (message as unknown as { params: { data: unknown } }).params.data]));
    return { streamId, sent };
  };

  it('records a keyed event once per stream, answering the first id to a repeat', () => {
    const store = new InMemoryEventStore();
    const first = store.store('s', note(1), 'r0:1');
    expect(store.store('s', note(1), 'r0:1')).toBe(first);
    const other = store.store('t', note(1), 'r0:1');
    expect(other).not.toBe(first);
    const unkeyed = [store.store('s', note(2)), store.store('s', note(2))];
    expect(unkeyed[0]).not.toBe(unkeyed[1]);
    expect(replay(store, first)).toEqual({ streamId: 's', sent: unkeyed.map((id) => [id, 2]) });
  });

  it('forgets the key of an event with the event, beyond maxEvents', () => {
    const store = new InMemoryEventStore(2);
    const first = store.store('s', note(1), 'k');
    store.store('s', note(2));
    store.store('s', note(3));
    expect(replay(store, first).streamId).toBeUndefined();
    // Forgotten: the same key is a new event now.
    expect(store.store('s', note(1), 'k')).not.toBe(first);
  });
});
