import { createHash } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import type { ResultCacheStore } from '@typemcp/guards';
import { RedisGuard } from './guard';
import { checkClient, invalidOption, keyPrefixOf, positiveInteger } from './keys';
import type { RedisStoreOptions } from './keys';
import { tagged } from './RedisRateLimitStore';
import { LuaScript } from './script';

/** Options of a RedisResultCache. */
export interface RedisResultCacheOptions extends RedisStoreOptions {
  /**
   * A command not answered within this many ms fails with an `UnavailableError` (default
   * 5 000), and every later one fails at once until Redis answers a PING again: the `cache`
   * plugin then runs items as if nothing were cached instead of waiting on a sick Redis.
   */
  commandTimeoutMs?: number;
  /** Told when Redis stops answering (with the cause) and when it answers again. */
  onAvailabilityChange?: (up: boolean, cause?: unknown) => void;
  /** A value of more bytes (UTF-8) than this is not stored, so one huge result cannot fill Redis (default 1 048 576: 1 MiB). */
  maxValueBytes?: number;
}

// KEYS: the group's generation. ARGV: the base of its entries (same hash tag), the entry's key.
// The entry is named after the generation read here: one slot, one round trip. { value, pttl }.
const GET = new LuaScript(`
local entry = ARGV[1] .. (redis.call('GET', KEYS[1]) or '0') .. ':' .. ARGV[2]
local value = redis.call('GET', entry)
if not value then return false end
return { value, redis.call('PTTL', entry) }
`);

// KEYS: the group's generation. ARGV: the base of its entries, the entry's key, value, ttl ms.
const SET = new LuaScript(`
local entry = ARGV[1] .. (redis.call('GET', KEYS[1]) or '0') .. ':' .. ARGV[2]
redis.call('SET', entry, ARGV[3], 'PX', ARGV[4])
`);

/**
 * The results the `cache` guard of `@typemcp/guards` keeps, in Redis and shared by every
 * replica: what one replica computed, the others serve until it expires. Each group (one
 * tool, resource or prompt) has a generation, `<prefix>cache:{<group>}:gen`, and its entries
 * are `<prefix>cache:{<group>}:<generation>:<key>` with their TTL (`PX`): `invalidate` is one
 * `INCR` of the generation, after which no replica reads an older entry (they expire on their
 * own). `get` and `set` are one Lua script each, one round trip; keys of a group share a hash
 * tag, so the store runs on a Redis Cluster. A value over `maxValueBytes` is not stored. Every
 * command is bounded (`commandTimeoutMs`): a frozen Redis makes calls reject within it.
 */
export class RedisResultCache implements ResultCacheStore {
  private readonly redis: Redis;
  private readonly base: string;
  private readonly guard: RedisGuard;
  private readonly maxValueBytes: number;

  /** `client`: an ioredis `Redis` or `Cluster`, which stays yours to quit. */
  constructor(client: Redis | Cluster, options?: RedisResultCacheOptions) {
    checkClient(client, 'RedisResultCache');
    this.base = `${keyPrefixOf(options, 'RedisResultCache')}cache:`;
    const commandTimeoutMs = positiveInteger(options?.commandTimeoutMs, 5_000, 'RedisResultCache', 'commandTimeoutMs');
    this.maxValueBytes = positiveInteger(options?.maxValueBytes, 1_048_576, 'RedisResultCache', 'maxValueBytes');
    if (options?.onAvailabilityChange !== undefined && typeof options.onAvailabilityChange !== 'function') throw invalidOption('RedisResultCache: onAvailabilityChange must be a function');
    this.guard = new RedisGuard(client as Redis, { commandTimeoutMs, probeIntervalMs: Math.min(1_000, commandTimeoutMs), onChange: options?.onAvailabilityChange });
    this.redis = this.guard.wrap();
  }

  async get(group: string, key: string): Promise<{ value: string; ttlMs: number } | undefined> {
    const [gen, entries] = this.keysOf(group);
    const found = (await GET.run(this.redis, [gen], [entries, entryName(key)])) as [string, number] | null;
    if (found === null) return undefined;
    // Every entry is set with a TTL; a PTTL below 1 (none, or gone this ms) counts as 1.
    return { value: found[0], ttlMs: Math.max(1, found[1]) };
  }

  async set(group: string, key: string, value: string, ttlMs: number): Promise<void> {
    if (!(ttlMs >= 1) || this.tooLarge(value)) return;
    const [gen, entries] = this.keysOf(group);
    await SET.run(this.redis, [gen], [entries, entryName(key), value, Math.ceil(ttlMs)]);
  }

  async invalidate(group: string): Promise<void> {
    await this.redis.incr(this.keysOf(group)[0]);
  }

  /** True while Redis answers, as far as this cache knows. */
  get available(): boolean {
    return this.guard.up;
  }

  /** Stops watching for Redis to answer again (a PING runs only while it does not). The connection stays open. */
  close(): void {
    this.guard.close();
  }

  /** Over maxValueBytes in UTF-8 (a character is 1 to 3 bytes per UTF-16 unit: most values need no count). */
  private tooLarge(value: string): boolean {
    if (value.length > this.maxValueBytes) return true;
    return value.length * 3 > this.maxValueBytes && Buffer.byteLength(value) > this.maxValueBytes;
  }

  /** The group's generation key, and the base of its entries' keys (same hash tag). */
  private keysOf(group: string): [string, string] {
    const tag = `${this.base}{${tagged(group)}}`;
    return [`${tag}:gen`, `${tag}:`];
  }
}

/**
 * The name of an entry under its group: the key as it is, or, for a long one (a cache key holds
 * the call's arguments) and one that could be taken for a digest, `#` and its SHA-256, so key
 * names stay short and two keys never share a name.
 */
function entryName(key: string): string {
  return key.length > 128 || key.startsWith('#') ? `#${createHash('sha256').update(key).digest('base64url')}` : key;
}
