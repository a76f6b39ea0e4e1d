/**
 * RedisUpstreamSessionStore against a real redis-server, beside the memory store it replaces
 * for replicas: the same answers for get, add, compare-and-set replace, take-once and expiry,
 * and a replace race that exactly one replica wins.
 */
import { randomBytes } from 'node:crypto';
import { MemoryUpstreamSessionStore } from '@typemcp/auth';
import type { UpstreamSessionEntry, UpstreamSessionStore } from '@typemcp/auth';
import { RedisUpstreamSessionStore } from '@typemcp/redis';
import { sleep, useRedis } from './redisTestSupport';

const redis = useRedis();
const entry = (version: number, grantId?: string): UpstreamSessionEntry => ({ sealed: `sealed-${version}`, binding: 'binding', version, ...(grantId ? { grantId } : {}) });

describe.each([
  ['memory', () => new MemoryUpstreamSessionStore()],
  ['redis', () => new RedisUpstreamSessionStore(redis.client(), { keyPrefix: redis.prefix() })],
] as Array<[string, () => UpstreamSessionStore]>)('%s upstream session store', (_, make) => {
  it('keeps an entry, replaces it only at the expected version, and gives it to one taker', async () => {
    const store = make();
    const id = randomBytes(8).toString('hex');
    expect(await store.get(id)).toBeUndefined();
    await store.add(id, entry(0), 60);
    expect(await store.get(id)).toEqual(entry(0));
    expect(await store.replace(id, 1, entry(2), 60)).toBe(false);
    expect(await store.replace(id, 0, entry(1, 'g1'), 60)).toBe(true);
    expect(await store.get(id)).toEqual(entry(1, 'g1'));
    expect(await store.take(id)).toEqual(entry(1, 'g1'));
    expect(await store.take(id)).toBeUndefined();
    expect(await store.replace(id, 1, entry(2), 60)).toBe(false);
  });

  it('lets exactly one of twenty concurrent replacements of one version win', async () => {
    const store = make();
    const id = randomBytes(8).toString('hex');
    await store.add(id, entry(0), 60);
    const wins = await Promise.all(Array.from({ length: 20 }, (_, i) => store.replace(id, 0, { ...entry(1), sealed: `winner-${i}` }, 60)));
    expect(wins.filter(Boolean)).toHaveLength(1);
    expect((await store.get(id))?.sealed).toBe(`winner-${wins.indexOf(true)}`);
  });

  it('forgets an entry when its time is up', async () => {
    const store = make();
    const id = randomBytes(8).toString('hex');
    await store.add(id, entry(0), 0.2);
    await sleep(300);
    expect(await store.get(id)).toBeUndefined();
  });
});
