/**
 * RedisRateLimitStore and RedisResultCache on a real redis-server: the guards' store contracts
 * (test-support/guardStoreContracts.ts), with two stores on two connections as two replicas;
 * then what Redis holds (hash-tagged keys under the prefix, a window of at most `limit`
 * members expiring with it, a bucket expiring when full again, generations), one round trip a
 * call, the bound on values, and the options refused.
 */
import { Redis } from 'ioredis';
import { DefinitionError } from '@typemcp/core';
import { RedisRateLimitStore, RedisResultCache } from '@typemcp/redis';
import { describeRateLimitStore, describeResultCacheStore } from '../../../test-support/guardStoreContracts';
import { countCommands } from '../../../test-support/redisServer';
import { useRedis } from './redisTestSupport';

const redis = useRedis();
let contractPrefix: string;
beforeAll(() => {
  contractPrefix = redis.prefix();
});

describeRateLimitStore('RedisRateLimitStore', () => new RedisRateLimitStore(redis.client(), { keyPrefix: contractPrefix }), { shared: true });
describeResultCacheStore('RedisResultCache', () => new RedisResultCache(redis.client(), { keyPrefix: contractPrefix }), { shared: true });

describe('what Redis holds', () => {
  it('a sliding window: one sorted set per caller and rule, hash-tagged, of at most limit members, expiring with the window', async () => {
    const client = redis.client();
    const keyPrefix = redis.prefix();
    const store = new RedisRateLimitStore(client, { keyPrefix });
    const rule = { limit: 3, windowMs: 5_000, algorithm: 'sliding-window' as const };
    for (let i = 0; i < 6; i++) await store.take('principal:https://issuer|alice', rule);
    await store.take('principal:https://issuer|alice', { ...rule, limit: 4 });
    const key = `${keyPrefix}ratelimit:{principal:https://issuer|alice}:sliding-window:3:5000`;
    expect((await client.keys(`${keyPrefix}*`)).sort()).toEqual([key, `${keyPrefix}ratelimit:{principal:https://issuer|alice}:sliding-window:4:5000`]);
    expect(await client.type(key)).toBe('zset');
    expect(await client.zcard(key)).toBe(3);
    const ttl = await client.pttl(key);
    expect(ttl).toBeGreaterThan(4_000);
    expect(ttl).toBeLessThanOrEqual(5_000);
    // The members' scores are Redis's clock in ms.
    const [, score] = await client.zrange(key, '0', '0', 'WITHSCORES');
    const [seconds, micros] = await client.time();
    const age = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000) - Number(score);
    expect(age).toBeGreaterThanOrEqual(0);
    expect(age).toBeLessThan(1_000);
  });

  it('a token bucket: a hash of units and when, expiring when it would be full again', async () => {
    const client = redis.client();
    const keyPrefix = redis.prefix();
    const store = new RedisRateLimitStore(client, { keyPrefix });
    const rule = { limit: 10, windowMs: 60_000, algorithm: 'token-bucket' as const };
    await store.take('address:192.0.2.1', rule);
    await store.take('address:192.0.2.1', rule);
    const key = `${keyPrefix}ratelimit:{address:192.0.2.1}:token-bucket:10:60000`;
    expect(await client.type(key)).toBe('hash');
    const state = await client.hgetall(key);
    // 8 tokens of 60 000 units each, give or take the few ms between the takes (10 units a ms).
    expect(Number(state.units)).toBeGreaterThanOrEqual(8 * 60_000);
    expect(Number(state.units)).toBeLessThan(8 * 60_000 + 10 * 1_000);
    // Two tokens come back in 12 s.
    const ttl = await client.pttl(key);
    expect(ttl).toBeGreaterThan(11_000);
    expect(ttl).toBeLessThanOrEqual(12_000);
  });

  it('a caller key with braces and percent signs stays inside its hash tag', async () => {
    const client = redis.client();
    const keyPrefix = redis.prefix();
    const store = new RedisRateLimitStore(client, { keyPrefix });
    const one = { limit: 1, windowMs: 5_000, algorithm: 'sliding-window' as const };
    expect((await store.take('a}b', one)).allowed).toBe(true);
    expect((await store.take('a%7Db', one)).allowed).toBe(true);
    expect((await client.keys(`${keyPrefix}*`)).sort()).toEqual([`${keyPrefix}ratelimit:{a%257Db}:sliding-window:1:5000`, `${keyPrefix}ratelimit:{a%7Db}:sliding-window:1:5000`]);
  });

  it('cached results: entries under the generation of their group, with their TTL; invalidate is one INCR', async () => {
    const client = redis.client();
    const keyPrefix = redis.prefix();
    const cache = new RedisResultCache(client, { keyPrefix });
    await cache.set('tool:search', 'k1', 'v1', 30_000);
    expect(await client.get(`${keyPrefix}cache:{tool:search}:0:k1`)).toBe('v1');
    expect(await client.pttl(`${keyPrefix}cache:{tool:search}:0:k1`)).toBeGreaterThan(29_000);
    await cache.invalidate('tool:search');
    expect(await client.get(`${keyPrefix}cache:{tool:search}:gen`)).toBe('1');
    await cache.set('tool:search', 'k1', 'v2', 30_000);
    expect(await client.get(`${keyPrefix}cache:{tool:search}:1:k1`)).toBe('v2');
    // The old generation's entry is left to expire.
    expect(await client.get(`${keyPrefix}cache:{tool:search}:0:k1`)).toBe('v1');
    expect((await cache.get('tool:search', 'k1'))?.value).toBe('v2');
  });

  it('does not store a value over maxValueBytes (counted in UTF-8), nor one with no lifetime', async () => {
    const client = redis.client();
    const keyPrefix = redis.prefix();
    const cache = new RedisResultCache(client, { keyPrefix, maxValueBytes: 10 });
    await cache.set('g', 'fits', '0123456789', 10_000);
    await cache.set('g', 'too-long', '0123456789a', 10_000);
    await cache.set('g', 'too-many-bytes', 'ééééé€', 10_000);
    await cache.set('g', 'no-life', 'x', 0);
    expect((await cache.get('g', 'fits'))?.value).toBe('0123456789');
    expect(await cache.get('g', 'too-long')).toBeUndefined();
    expect(await cache.get('g', 'too-many-bytes')).toBeUndefined();
    expect(await cache.get('g', 'no-life')).toBeUndefined();
    // 1 MiB by default.
    const byDefault = new RedisResultCache(client, { keyPrefix });
    await byDefault.set('g', 'mib', 'x'.repeat(1_048_576), 10_000);
    await byDefault.set('g', 'over', 'x'.repeat(1_048_577), 10_000);
    expect((await byDefault.get('g', 'mib'))?.value).toHaveLength(1_048_576);
    expect(await byDefault.get('g', 'over')).toBeUndefined();
  });
});

describe('round trips', () => {
  it('take, get, set and invalidate are one command each (a script or INCR), whatever the outcome', async () => {
    const client = redis.client();
    const keyPrefix = redis.prefix();
    const limits = new RedisRateLimitStore(client, { keyPrefix });
    const cache = new RedisResultCache(client, { keyPrefix });
    // Scripts loaded first (EVAL once), then counted as they run in a steady state.
    await limits.take('warm', { limit: 1, windowMs: 1_000, algorithm: 'sliding-window' });
    await limits.take('warm', { limit: 1, windowMs: 1_000, algorithm: 'token-bucket' });
    await cache.set('warm', 'k', 'v', 1_000);
    await cache.get('warm', 'k');
    const sent = (counts: Record<string, number>) => (counts.evalsha ?? 0) + (counts.eval ?? 0) + (counts.incr ?? 0);
    for (const [what, call] of [
      ['sliding window, allowed', () => limits.take('c', { limit: 1, windowMs: 5_000, algorithm: 'sliding-window' })],
      ['sliding window, refused', () => limits.take('c', { limit: 1, windowMs: 5_000, algorithm: 'sliding-window' })],
      ['token bucket, allowed', () => limits.take('c', { limit: 1, windowMs: 5_000, algorithm: 'token-bucket' })],
      ['token bucket, refused', () => limits.take('c', { limit: 1, windowMs: 5_000, algorithm: 'token-bucket' })],
      ['cache set', () => cache.set('g', 'k', 'v', 5_000)],
      ['cache get, found', () => cache.get('g', 'k')],
      ['cache get, missing', () => cache.get('g', 'missing')],
      ['cache invalidate', () => cache.invalidate('g')],
    ] as const) {
      const { byCommand } = await countCommands(redis.server.port, call);
      expect({ what, sent: sent(byCommand) }).toEqual({ what, sent: 1 });
    }
  });

  it('loads a script again after SCRIPT FLUSH (EVALSHA answered NOSCRIPT, then EVAL)', async () => {
    const client = redis.client();
    const keyPrefix = redis.prefix();
    const limits = new RedisRateLimitStore(client, { keyPrefix });
    const cache = new RedisResultCache(client, { keyPrefix });
    await cache.set('g', 'k', 'v', 5_000);
    await client.script('FLUSH');
    expect((await limits.take('k', { limit: 2, windowMs: 5_000, algorithm: 'sliding-window' })).remaining).toBe(1);
    expect((await cache.get('g', 'k'))?.value).toBe('v');
  });
});

describe('options', () => {
  const client = () => new Redis({ lazyConnect: true });

  it('refuses what is not an ioredis client, and bad options, naming them', () => {
    expect(() => new RedisRateLimitStore({} as Redis)).toThrow(/RedisRateLimitStore: the first argument must be an ioredis client/);
    expect(() => new RedisResultCache('redis://127.0.0.1' as unknown as Redis)).toThrow(/RedisResultCache: the first argument must be an ioredis client/);
    expect(() => new RedisRateLimitStore(client(), { commandTimeoutMs: 0 })).toThrow(DefinitionError);
    expect(() => new RedisRateLimitStore(client(), { commandTimeoutMs: 0 })).toThrow(/commandTimeoutMs must be a positive integer, not 0/);
    expect(() => new RedisResultCache(client(), { maxValueBytes: 1.5 })).toThrow(/RedisResultCache: maxValueBytes must be a positive integer, not 1.5/);
    expect(() => new RedisResultCache(client(), { keyPrefix: 3 as unknown as string })).toThrow(/RedisResultCache: keyPrefix must be a string/);
    expect(() => new RedisRateLimitStore(client(), { onAvailabilityChange: 'log' as never })).toThrow(/RedisRateLimitStore: onAvailabilityChange must be a function/);
  });

  it('rejects a rule Redis could not count exactly, sending nothing', async () => {
    const store = new RedisRateLimitStore(client());
    await expect(store.take('k', { limit: 0, windowMs: 1_000, algorithm: 'sliding-window' })).rejects.toThrow(/positive integer limit and windowMs/);
    await expect(store.take('k', { limit: 2, windowMs: 1.5, algorithm: 'token-bucket' })).rejects.toThrow(RangeError);
    await expect(store.take('k', { limit: 2 ** 30, windowMs: 2 ** 30, algorithm: 'token-bucket' })).rejects.toThrow(RangeError);
    await expect(store.take('k', { limit: 2, windowMs: 1_000, algorithm: 'fixed-window' as never })).rejects.toThrow(/unknown algorithm "fixed-window"/);
  });
});
