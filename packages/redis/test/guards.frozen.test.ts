/**
 * RedisRateLimitStore and RedisResultCache against a frozen Redis (SIGSTOP on the test's own
 * redis-server): a take, get, set or invalidate rejects with an UnavailableError within the
 * command bound, the next ones at once, and the stores answer again soon after SIGCONT.
 */
import { Redis } from 'ioredis';
import { UnavailableError } from '@typemcp/core';
import { RedisRateLimitStore, RedisResultCache } from '@typemcp/redis';
import { startRedis } from '../../../test-support/redisServer';
import type { RedisServer } from '../../../test-support/redisServer';

const BOUND_MS = 300;
let frozen: RedisServer;
let client: Redis;

beforeEach(async () => {
  frozen = await startRedis();
  client = new Redis(frozen.url);
});

afterEach(async () => {
  try {
    process.kill(frozen.pid, 'SIGCONT');
  } catch {
    // already gone
  }
  client.disconnect();
  await frozen.stop();
});

/** How a call ends, and how long it took. */
async function timed<T>(call: () => Promise<T>): Promise<{ ms: number; error?: unknown; value?: T }> {
  const started = performance.now();
  try {
    const value = await call();
    return { ms: performance.now() - started, value };
  } catch (error) {
    return { ms: performance.now() - started, error };
  }
}

/** The first call that resolves, trying every 100 ms for up to 10 s. */
async function eventually<T>(call: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      return await call();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

it('a rate limit take rejects within the bound while Redis is frozen, fails fast after, and counts again after SIGCONT', async () => {
  const changes: boolean[] = [];
  const store = new RedisRateLimitStore(client, { keyPrefix: 'frozen:', commandTimeoutMs: BOUND_MS, onAvailabilityChange: (up) => changes.push(up) });
  const rule = { limit: 2, windowMs: 60_000, algorithm: 'sliding-window' as const };
  try {
    expect((await store.take('alice', rule)).allowed).toBe(true);

    process.kill(frozen.pid, 'SIGSTOP');
    const first = await timed(() => store.take('alice', rule));
    expect(first.error).toBeInstanceOf(UnavailableError);
    expect(first.ms).toBeGreaterThanOrEqual(BOUND_MS - 20);
    expect(first.ms).toBeLessThan(BOUND_MS + 1_000);
    const next = await timed(() => store.take('bob', { ...rule, algorithm: 'token-bucket' }));
    expect(next.error).toBeInstanceOf(UnavailableError);
    expect(next.ms).toBeLessThan(100);
    expect(store.available).toBe(false);
    expect(changes).toEqual([false]);

    process.kill(frozen.pid, 'SIGCONT');
    await eventually(() => store.take('alice', rule));
    expect(store.available).toBe(true);
    expect(changes).toEqual([false, true]);
    // Whether or not the take sent into the frozen Redis ran when it woke, the window is full now, and exact.
    expect((await store.take('alice', rule)).allowed).toBe(false);
    expect(await client.zcard('frozen:ratelimit:{alice}:sliding-window:2:60000')).toBe(2);
  } finally {
    store.close();
  }
}, 30_000);

it('a cached result: get, set and invalidate reject within the bound while Redis is frozen, and the cache serves again after SIGCONT', async () => {
  const cache = new RedisResultCache(client, { keyPrefix: 'frozen:', commandTimeoutMs: BOUND_MS });
  try {
    await cache.set('tool:search', 'k', 'cached', 60_000);

    process.kill(frozen.pid, 'SIGSTOP');
    const first = await timed(() => cache.get('tool:search', 'k'));
    expect(first.error).toBeInstanceOf(UnavailableError);
    expect(first.ms).toBeLessThan(BOUND_MS + 1_000);
    const calls: Array<() => Promise<unknown>> = [() => cache.set('tool:search', 'k2', 'v', 60_000), () => cache.invalidate('tool:search'), () => cache.get('tool:search', 'k')];
    for (const call of calls) {
      const failed = await timed(call);
      expect(failed.error).toBeInstanceOf(UnavailableError);
      expect(failed.ms).toBeLessThan(100);
    }

    process.kill(frozen.pid, 'SIGCONT');
    expect(await eventually(() => cache.get('tool:search', 'k'))).toMatchObject({ value: 'cached' });
    await cache.invalidate('tool:search');
    expect(await cache.get('tool:search', 'k')).toBeUndefined();
  } finally {
    cache.close();
  }
}, 30_000);
