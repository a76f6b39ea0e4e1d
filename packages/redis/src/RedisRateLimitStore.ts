import { randomUUID } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import type { RateDecision, RateLimitStore, RateRule } from '@typemcp/guards';
import { RedisGuard } from './guard';
import { checkClient, invalidOption, keyPrefixOf, positiveInteger } from './keys';
import type { RedisStoreOptions } from './keys';
import { LuaScript } from './script';

/** Options of a RedisRateLimitStore. */
export interface RedisRateLimitStoreOptions extends RedisStoreOptions {
  /**
   * A command not answered within this many ms fails with an `UnavailableError` (default
   * 5 000), and every later one fails at once until Redis answers a PING again: the `rateLimit`
   * plugin then fails open (or closed, as configured) instead of waiting on a sick Redis.
   */
  commandTimeoutMs?: number;
  /** Told when Redis stops answering (with the cause) and when it answers again. */
  onAvailabilityChange?: (up: boolean, cause?: unknown) => void;
}

// Redis's clock in ms, the same for every replica (a key lives on one node). Redis 6.2+
// replicates a script's effects, so TIME may come before writes; on 6.2 a server configured
// otherwise is switched for this script by replicate_commands (a no-op on 7).
const NOW = `
redis.replicate_commands()
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
`;

// KEYS: the window (a sorted set of the allowed requests' times). ARGV: limit, window ms, a
// member unique among replicas. Returns { allowed, remaining, retryAfterMs }. Only allowed
// requests are kept, so the set holds at most `limit` members; a refused one may retry when
// the oldest leaves the window.
const SLIDING_WINDOW = new LuaScript(`${NOW}
local limit, window = tonumber(ARGV[1]), tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
if count < limit then
  redis.call('ZADD', KEYS[1], now, ARGV[3])
  redis.call('PEXPIRE', KEYS[1], window)
  return { 1, limit - count - 1, 0 }
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return { 0, 0, math.max(1, tonumber(oldest[2]) + window - now) }
`);

// KEYS: the bucket (a hash: 'units' and 'at', when they were counted). ARGV: limit, window ms.
// One token is `window` units and the bucket gains `limit` units a ms, so it refills from
// empty to `limit` tokens in one window, in integers: no rounding drifts between replicas.
// A full bucket is no key: the key expires when the bucket would be full again.
const TOKEN_BUCKET = new LuaScript(`${NOW}
local limit, window = tonumber(ARGV[1]), tonumber(ARGV[2])
local capacity = limit * window
local state = redis.call('HMGET', KEYS[1], 'units', 'at')
local units, at = tonumber(state[1]), tonumber(state[2])
if units == nil or at == nil then units, at = capacity, now end
units = math.min(capacity, units + math.max(0, now - at) * limit)
if units < window then
  return { 0, 0, math.ceil((window - units) / limit) }
end
units = units - window
redis.call('HSET', KEYS[1], 'units', string.format('%.0f', units), 'at', string.format('%.0f', now))
redis.call('PEXPIRE', KEYS[1], math.max(1, math.ceil((capacity - units) / limit)))
return { 1, math.floor(units / window), 0 }
`);

/**
 * The counts of the `rateLimit` guard of `@typemcp/guards` in Redis, shared by every replica:
 * a limit of N a window allows N requests across all of them. Each `take` is one Lua script,
 * one round trip (EVALSHA), atomic (two replicas racing for the last unit: one is refused),
 * and reads Redis's clock (`TIME`), so replicas whose clocks disagree still count alike.
 * Sliding windows are exact (a sorted set of the allowed requests' times, at most `limit`
 * members, expiring with the window); token buckets are a hash of the tokens left and when.
 * `retryAfterMs` is exact: when the oldest request leaves the window, or the next token comes.
 * One key per caller and rule, `<prefix>ratelimit:{<caller>}:<algorithm>:<limit>:<windowMs>`
 * (so a changed rule starts afresh), hash-tagged: the store runs on a Redis Cluster. Every
 * command is bounded (`commandTimeoutMs`): a frozen Redis makes `take` reject within it.
 */
export class RedisRateLimitStore implements RateLimitStore {
  private readonly redis: Redis;
  private readonly base: string;
  private readonly guard: RedisGuard;

  /** `client`: an ioredis `Redis` or `Cluster`, which stays yours to quit. */
  constructor(client: Redis | Cluster, options?: RedisRateLimitStoreOptions) {
    checkClient(client, 'RedisRateLimitStore');
    this.base = `${keyPrefixOf(options, 'RedisRateLimitStore')}ratelimit:`;
    const commandTimeoutMs = positiveInteger(options?.commandTimeoutMs, 5_000, 'RedisRateLimitStore', 'commandTimeoutMs');
    if (options?.onAvailabilityChange !== undefined && typeof options.onAvailabilityChange !== 'function') throw invalidOption('RedisRateLimitStore: onAvailabilityChange must be a function');
    this.guard = new RedisGuard(client as Redis, { commandTimeoutMs, probeIntervalMs: Math.min(1_000, commandTimeoutMs), onChange: options?.onAvailabilityChange });
    this.redis = this.guard.wrap();
  }

  async take(key: string, rule: RateRule): Promise<RateDecision> {
    const { limit, windowMs, algorithm } = rule;
    // Lua counts in doubles: limit × window must stay an exact integer.
    if (!Number.isSafeInteger(limit) || limit < 1 || !Number.isSafeInteger(windowMs) || windowMs < 1 || !Number.isSafeInteger(limit * windowMs)) {
      throw new RangeError(`RedisRateLimitStore: a rule needs a positive integer limit and windowMs, not ${JSON.stringify({ limit, windowMs })}`);
    }
    const redisKey = `${this.base}{${tagged(key)}}:${algorithm}:${limit}:${windowMs}`;
    let reply: unknown;
    if (algorithm === 'sliding-window') reply = await SLIDING_WINDOW.run(this.redis, [redisKey], [limit, windowMs, randomUUID()]);
    else if (algorithm === 'token-bucket') reply = await TOKEN_BUCKET.run(this.redis, [redisKey], [limit, windowMs]);
    else throw new RangeError(`RedisRateLimitStore: unknown algorithm ${JSON.stringify(algorithm)}`);
    const [allowed, remaining, retryAfterMs] = reply as [number, number, number];
    return { allowed: allowed === 1, remaining, retryAfterMs };
  }

  /** True while Redis answers, as far as this store knows. */
  get available(): boolean {
    return this.guard.up;
  }

  /** Stops watching for Redis to answer again (a PING runs only while it does not). The connection stays open. */
  close(): void {
    this.guard.close();
  }
}

/**
 * A name made safe inside a hash tag: `%` and `}` escaped, so the tag ends where the store
 * closes it and two names never make one key.
 */
export function tagged(name: string): string {
  return name.replace(/[%}]/g, (c) => (c === '%' ? '%25' : '%7D'));
}
