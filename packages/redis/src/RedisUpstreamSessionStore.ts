import type { Cluster, Redis } from 'ioredis';
import type { UpstreamSessionEntry, UpstreamSessionStore } from '@typemcp/auth';
import { RedisGuard } from './guard';
import { checkClient, invalidOption, keyPrefixOf, positiveInteger } from './keys';
import type { RedisStoreOptions } from './keys';
import { LuaScript } from './script';

/** Options of a RedisUpstreamSessionStore. */
export interface RedisUpstreamSessionStoreOptions extends RedisStoreOptions {
  /**
   * A command not answered within this many ms fails with an `UnavailableError` (default
   * 5 000), and every later one fails at once until Redis answers a PING again: sign-ins and
   * tools asking for the upstream token are then answered 503, never served stale tokens.
   */
  commandTimeoutMs?: number;
  /** Told when Redis stops answering (with the cause) and when it answers again. */
  onAvailabilityChange?: (up: boolean, cause?: unknown) => void;
}

/** Sets the entry only while the stored one has the expected version: one refresh wins across replicas. */
const REPLACE = new LuaScript(`
local current = redis.call('GET', KEYS[1])
if not current then return 0 end
if cjson.decode(current).version ~= tonumber(ARGV[1]) then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1
`);

/**
 * The upstream sign-ins of `signIn`'s proxy mode in Redis (`upstream: …, upstreamSessions`):
 * every replica refreshes and revokes the same upstream tokens. An entry is one key holding
 * JSON with the tokens sealed under signIn's secret (never in the clear); replacing it is a
 * compare-and-set on its version (one script), taking it is GETDEL, so one replica revokes
 * its tokens once.
 */
export class RedisUpstreamSessionStore implements UpstreamSessionStore {
  private readonly redis: Redis;
  private readonly base: string;
  private readonly guard: RedisGuard;

  /** `client`: an ioredis `Redis` or `Cluster`, which stays yours to quit. */
  constructor(client: Redis | Cluster, options?: RedisUpstreamSessionStoreOptions) {
    checkClient(client, 'RedisUpstreamSessionStore');
    this.base = `${keyPrefixOf(options, 'RedisUpstreamSessionStore')}upstream:`;
    const commandTimeoutMs = positiveInteger(options?.commandTimeoutMs, 5_000, 'RedisUpstreamSessionStore', 'commandTimeoutMs');
    if (options?.onAvailabilityChange !== undefined && typeof options.onAvailabilityChange !== 'function') throw invalidOption('RedisUpstreamSessionStore: onAvailabilityChange must be a function');
    this.guard = new RedisGuard(client, { commandTimeoutMs, probeIntervalMs: Math.min(1_000, commandTimeoutMs), onChange: options?.onAvailabilityChange });
    this.redis = this.guard.wrap();
  }

  async get(id: string): Promise<UpstreamSessionEntry | undefined> {
    const value = await this.redis.get(this.base + id);
    return value === null ? undefined : (JSON.parse(value) as UpstreamSessionEntry);
  }

  async add(id: string, entry: UpstreamSessionEntry, ttlSec: number): Promise<void> {
    await this.redis.set(this.base + id, JSON.stringify(entry), 'PX', ttlSec * 1000);
  }

  async replace(id: string, expectedVersion: number, next: UpstreamSessionEntry, ttlSec: number): Promise<boolean> {
    return (await REPLACE.run(this.redis, [this.base + id], [expectedVersion, JSON.stringify(next), ttlSec * 1000])) === 1;
  }

  async take(id: string): Promise<UpstreamSessionEntry | undefined> {
    const value = await this.redis.getdel(this.base + id);
    return value === null ? undefined : (JSON.parse(value) as UpstreamSessionEntry);
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
