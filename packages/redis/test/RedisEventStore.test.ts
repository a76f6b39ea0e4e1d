import { DefinitionError } from '@typemcp/core';
import type { JsonRpcMessage } from '@typemcp/core';
import { RedisEventStore } from '@typemcp/redis';
import { sleep, useRedis } from './redisTestSupport';

const redis = useRedis();

const note = (n: number): JsonRpcMessage => ({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: { n, nested: [1, 'two', null, { deep: true }] } } });

async function replay(store: RedisEventStore, lastEventId: string): Promise<{ streamId: string | undefined; sent: Array<[string, JsonRpcMessage]> }> {
  const sent: Array<[string, JsonRpcMessage]> = [];
  const streamId = await store.replayAfter(lastEventId, (eventId, message) => sent.push([eventId, message]));
  return { streamId, sent };
}

it('replays, in order, only the events of the same stream after the given one, and names the stream', async () => {
  const store = new RedisEventStore(redis.client(), { keyPrefix: redis.prefix() });
  const a: string[] = [];
  const b: string[] = [];
  for (let n = 0; n < 5; n++) {
    a.push(await store.store('stream-a', note(n)));
    b.push(await store.store('stream-b', note(100 + n)));
  }
  const fromA = await replay(store, a[1]);
  expect(fromA.streamId).toBe('stream-a');
  expect(fromA.sent).toEqual([2, 3, 4].map((n) => [a[n], note(n)]));
  const fromB = await replay(store, b[3]);
  expect(fromB).toEqual({ streamId: 'stream-b', sent: [[b[4], note(104)]] });
  expect(await replay(store, a[4])).toEqual({ streamId: 'stream-a', sent: [] });
});

it('gives event ids unique across streams and replicas, each naming its stream', async () => {
  const keyPrefix = redis.prefix();
  const one = new RedisEventStore(redis.client(), { keyPrefix });
  const two = new RedisEventStore(redis.client(), { keyPrefix });
  const ids = await Promise.all(Array.from({ length: 50 }, (_, n) => (n % 2 ? one : two).store(n % 3 ? 's:1' : 's:2', note(n))));
  expect(new Set(ids).size).toBe(50);
  for (const id of ids) expect(id).toMatch(/^s:[12]:\d+-\d+$/);
  // Either replica replays what both stored, in the order Redis took them.
  const inStream = ids.filter((id) => id.startsWith('s:1:')).sort(byEntryId);
  const rest = (await replay(two, inStream[0])).sent.map(([id]) => id);
  expect(rest).toEqual(inStream.slice(1));
});

function byEntryId(x: string, y: string): number {
  const [xm, xs] = x.slice(x.lastIndexOf(':') + 1).split('-').map(Number);
  const [ym, ys] = y.slice(y.lastIndexOf(':') + 1).split('-').map(Number);
  return xm - ym || xs - ys;
}

it('is undefined for unknown, malformed and foreign ids', async () => {
  const store = new RedisEventStore(redis.client(), { keyPrefix: redis.prefix() });
  const id = await store.store('s', note(1));
  for (const unknown of ['', 'nothing', 's:', 's:1-0', 'other:' + id.slice(2), `${id}0`, '0-1']) {
    expect(await replay(store, unknown)).toEqual({ streamId: undefined, sent: [] });
  }
  expect((await replay(store, id)).streamId).toBe('s');
});

it('keeps at most maxEventsPerStream events per stream: a forgotten id is unknown', async () => {
  const client = redis.client();
  const keyPrefix = redis.prefix();
  const store = new RedisEventStore(client, { keyPrefix, maxEventsPerStream: 3 });
  const ids: string[] = [];
  for (let n = 0; n < 6; n++) ids.push(await store.store('capped', note(n)));
  expect(await client.xlen(`${keyPrefix}events:{capped}`)).toBe(3);
  expect((await replay(store, ids[2])).streamId).toBeUndefined();
  expect(await replay(store, ids[3])).toEqual({ streamId: 'capped', sent: [4, 5].map((n) => [ids[n], note(n)]) });
});

it('forgets a stream streamTtlMs after its last event', async () => {
  const client = redis.client();
  const keyPrefix = redis.prefix();
  const store = new RedisEventStore(client, { keyPrefix, streamTtlMs: 200 });
  const first = await store.store('idle', note(1));
  await sleep(120);
  await store.store('idle', note(2));
  await sleep(120);
  expect((await replay(store, first)).sent).toHaveLength(1);
  expect(await client.pttl(`${keyPrefix}events:{idle}`)).toBeGreaterThan(0);
  await sleep(150);
  expect((await replay(store, first)).streamId).toBeUndefined();
  expect(await client.exists(`${keyPrefix}events:{idle}`)).toBe(0);
});

it('stream ids may hold any character, colons included', async () => {
  const store = new RedisEventStore(redis.client(), { keyPrefix: redis.prefix() });
  const streamId = 'session:ab/c d:_GET_standalone\u00e9';
  const ids = [await store.store(streamId, note(1)), await store.store(streamId, note(2))];
  expect(await replay(store, ids[0])).toEqual({ streamId, sent: [[ids[1], note(2)]] });
});

it('refuses invalid options', () => {
  const client = redis.client();
  expect(() => new RedisEventStore(client, { maxEventsPerStream: 0 })).toThrow(DefinitionError);
  expect(() => new RedisEventStore(client, { maxEventsPerStream: 1.5 })).toThrow(/maxEventsPerStream must be a positive integer, not 1.5/);
  expect(() => new RedisEventStore(client, { streamTtlMs: -1 })).toThrow(/streamTtlMs must be a positive integer/);
});

it('records an event its replicas record together once per stream: a repeated key answers the first id', async () => {
  const client = redis.client();
  const keyPrefix = redis.prefix();
  const store = new RedisEventStore(client, { keyPrefix });
  const first = await store.store('shared', note(1), 'r0:7');
  expect(await store.store('shared', note(1), 'r0:7')).toBe(first);
  // The same key on another stream is another event.
  const elsewhere = await store.store('other', note(1), 'r0:7');
  expect(elsewhere).not.toBe(first);
  const second = await store.store('shared', note(2), 'r1:0');
  const unkeyed = [await store.store('shared', note(3)), await store.store('shared', note(3))];
  expect(new Set([first, second, ...unkeyed]).size).toBe(4);
  expect(await client.xlen(`${keyPrefix}events:{shared}`)).toBe(4);
  expect(await client.hgetall(`${keyPrefix}events:{shared}:keys`)).toEqual({ 'r0:7': first.slice('shared:'.length), 'r1:0': second.slice('shared:'.length) });
  expect(await client.pttl(`${keyPrefix}events:{shared}:keys`)).toBeGreaterThan(0);
});

it('forgets the keys of the events the cap drops, with them', async () => {
  const client = redis.client();
  const keyPrefix = redis.prefix();
  const store = new RedisEventStore(client, { keyPrefix, maxEventsPerStream: 2 });
  const ids = [await store.store('capped', note(0), 'k0'), await store.store('capped', note(1)), await store.store('capped', note(2), 'k2')];
  expect(await client.xlen(`${keyPrefix}events:{capped}`)).toBe(2);
  expect(Object.keys(await client.hgetall(`${keyPrefix}events:{capped}:keys`))).toEqual(['k2']);
  expect(await store.store('capped', note(2), 'k2')).toBe(ids[2]);
  expect((await replay(store, ids[1])).sent).toEqual([[ids[2], note(2)]]);
});
