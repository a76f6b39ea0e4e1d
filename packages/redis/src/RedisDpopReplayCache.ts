import type { Cluster, Redis } from 'ioredis';
import type { DpopReplayCache } from '@typemcp/auth';
import { RedisGuard } from './guard';
import { checkClient, invalidOption, keyPrefixOf, positiveInteger } from './keys';
import type { RedisStoreOptions } from './keys';

/** Options of a RedisDpopReplayCache. */
export interface RedisDpopReplayCacheOptions extends RedisStoreOptions {
  /**
   * A command not answered within this many ms fails with an `UnavailableError` (default
   * 5 000), and every later one fails at once until Redis answers a PING again: requests with a
   * DPoP proof are then answered 503 with `Retry-After`, never let through unchecked.
   */
  commandTimeoutMs?: number;
  /** Told when Redis stops answering (with the cause) and when it answers again. */
  onAvailabilityChange?: (up: boolean, cause?: unknown) => void;
}

/**
 * The DPoP proofs already used, in Redis (`dpop: { replayCache }` of `auth` and `signIn`):
 * replicas sharing it refuse a proof that any of them accepted. One key per proof, set only if
 * absent (`SET NX`) and expiring when the proof is too old to pass anyway, so Redis holds no
 * more than the proofs of the last window.
 */
export class RedisDpopReplayCache implements DpopReplayCache {
  private readonly redis: Redis;
  private readonly base: string;
  private readonly guard: RedisGuard;

  /** `client`: an ioredis `Redis` or `Cluster`, which stays yours to quit. */
  constructor(client: Redis | Cluster, options?: RedisDpopReplayCacheOptions) {
    checkClient(client, 'RedisDpopReplayCache');
    this.base = `${keyPrefixOf(options, 'RedisDpopReplayCache')}dpop:`;
    const commandTimeoutMs = positiveInteger(options?.commandTimeoutMs, 5_000, 'RedisDpopReplayCache', 'commandTimeoutMs');
    if (options?.onAvailabilityChange !== undefined && typeof options.onAvailabilityChange !== 'function') throw invalidOption('RedisDpopReplayCache: onAvailabilityChange must be a function');
    this.guard = new RedisGuard(client, { commandTimeoutMs, probeIntervalMs: Math.min(1_000, commandTimeoutMs), onChange: options?.onAvailabilityChange });
    this.redis = this.guard.wrap();
  }

  async add(id: string, expiresAt: number): Promise<boolean> {
    // A relative lifetime: the replicas' clocks decide when a proof is too old, not Redis's.
    const ttlMs = Math.max(1, Math.ceil(expiresAt - Date.now()));
    return (await this.redis.set(this.base + id, '1', 'PX', ttlMs, 'NX')) === 'OK';
  }

  /** True while Redis answers, as far as this cache knows. */
  get available(): boolean {
    return this.guard.up;
  }

  /** Stops watching for Redis to answer again (a PING runs only while it does not). The connection stays open. */
  close(): void {
    this.guard.close();
  }
}
