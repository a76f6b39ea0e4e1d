import type { RateDecision, RateLimitStore, RateRule } from './RateLimitStore';

/** Options of a `MemoryRateLimitStore`. */
export interface MemoryRateLimitStoreOptions {
  /** The clock, in ms (default `Date.now`); tests pass a fake one. */
  readonly now?: () => number;
  /** The most keys kept (default 100,000): past it, the key used least recently is dropped, and starts afresh. */
  readonly maxKeys?: number;
  /** How often, at most, idle keys are swept while the store is used, in ms (default 10,000). */
  readonly sweepIntervalMs?: number;
}

/** The requests one key made in the last window, oldest first: at most `limit` timestamps. */
interface WindowEntry {
  readonly algorithm: 'sliding-window';
  readonly windowMs: number;
  readonly log: number[];
  /** Index of the oldest timestamp still in the window; the log is compacted when it passes half. */
  head: number;
  last: number;
}

/**
 * A key's bucket. The level is counted in units of 1/windowMs of a token, so that refilling
 * `limit` tokens per `windowMs` adds exactly `limit` units per ms and integer clocks stay exact.
 */
interface BucketEntry {
  readonly algorithm: 'token-bucket';
  readonly windowMs: number;
  readonly limit: number;
  level: number;
  last: number;
}

type Entry = WindowEntry | BucketEntry;

const DEFAULT_MAX_KEYS = 100_000;
const DEFAULT_SWEEP_MS = 10_000;

/**
 * Rate limits counted in this process: exact sliding windows (a log of at most `limit`
 * timestamps per key) and token buckets (`limit` tokens refilled evenly over `windowMs`, a
 * burst of `limit`). Memory stays bounded: a key idle for its window is swept (it would count
 * as new anyway), and past `maxKeys` the key used least recently is dropped. One replica only:
 * replicas share limits through `RedisRateLimitStore` of `@typemcp/redis`.
 */
export class MemoryRateLimitStore implements RateLimitStore {
  private readonly entries = new Map<string, Entry>();
  private readonly now: () => number;
  private readonly maxKeys: number;
  private readonly sweepIntervalMs: number;
  private nextSweep: number;
  /** The key `take` was last given, its algorithm, and the key it is stored under. */
  private lastKey: string | undefined;
  private lastAlgorithm: RateRule['algorithm'] | undefined;
  private lastStored = '';
  /** The stored key used last: the map's last entry, unless it was dropped since. */
  private lastUsed: string | undefined;

  constructor(options: MemoryRateLimitStoreOptions = {}) {
    const { now = Date.now, maxKeys = DEFAULT_MAX_KEYS, sweepIntervalMs = DEFAULT_SWEEP_MS } = options;
    if (typeof now !== 'function') throw new TypeError('MemoryRateLimitStore: now must be a function that returns the time in ms');
    if (!Number.isSafeInteger(maxKeys) || maxKeys < 1) throw new TypeError(`MemoryRateLimitStore: maxKeys must be a positive integer, got ${String(maxKeys)}`);
    if (typeof sweepIntervalMs !== 'number' || !(sweepIntervalMs >= 0)) throw new TypeError(`MemoryRateLimitStore: sweepIntervalMs must be a number of ms ≥ 0, got ${String(sweepIntervalMs)}`);
    this.now = now;
    this.maxKeys = maxKeys;
    this.sweepIntervalMs = sweepIntervalMs;
    this.nextSweep = now() + sweepIntervalMs;
  }

  /** How many keys are kept now. */
  get size(): number {
    return this.entries.size;
  }

  /** Counts one request against `key`, answered at once (no promise): a request it allows stays synchronous. */
  take(key: string, rule: RateRule): RateDecision {
    const now = this.now();
    if (now >= this.nextSweep) this.sweep(now);
    // The two algorithms of one key count apart, as in every store. The last key is remembered:
    // a caller calling again reuses its (hashed) key instead of a new concatenation.
    let stored: string;
    if (key === this.lastKey && rule.algorithm === this.lastAlgorithm) stored = this.lastStored;
    else {
      stored = (rule.algorithm === 'token-bucket' ? 'b' : 'w') + key;
      this.lastKey = key;
      this.lastAlgorithm = rule.algorithm;
      this.lastStored = stored;
    }
    let entry = this.entries.get(stored);
    if (entry !== undefined) {
      // Moved to the end: the map's order is the order of last use, so the first key is the one to drop.
      // The key used last is at the end already.
      if (stored !== this.lastUsed) {
        this.entries.delete(stored);
        this.entries.set(stored, entry);
      }
      if (!fits(entry, rule)) this.entries.set(stored, (entry = fresh(rule, now)));
    } else {
      if (this.entries.size >= this.maxKeys) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(stored, (entry = fresh(rule, now)));
    }
    this.lastUsed = stored;
    return entry.algorithm === 'sliding-window' ? slide(entry, rule.limit, now) : drip(entry, now);
  }

  /** Drops the keys idle for their whole window: their next request would find them as new ones. */
  private sweep(now: number): void {
    this.nextSweep = now + this.sweepIntervalMs;
    for (const [key, entry] of this.entries) {
      if (now - entry.last >= entry.windowMs) this.entries.delete(key);
    }
    if (this.lastUsed !== undefined && !this.entries.has(this.lastUsed)) this.lastUsed = undefined;
  }
}

/** Whether an entry counts under this rule (a key's window changed, or a bucket's limit: it starts afresh). */
function fits(entry: Entry, rule: RateRule): boolean {
  if (entry.windowMs !== rule.windowMs) return false;
  return entry.algorithm === 'sliding-window' || entry.limit === rule.limit;
}

function fresh(rule: RateRule, now: number): Entry {
  return rule.algorithm === 'token-bucket'
    ? { algorithm: 'token-bucket', windowMs: rule.windowMs, limit: rule.limit, level: rule.limit * rule.windowMs, last: now }
    : { algorithm: 'sliding-window', windowMs: rule.windowMs, log: [], head: 0, last: now };
}

/** A request at `t` counts while `now < t + windowMs`. */
function slide(entry: WindowEntry, limit: number, now: number): RateDecision {
  const { log, windowMs } = entry;
  let head = entry.head;
  while (head < log.length && log[head] + windowMs <= now) head++;
  if (head > 32 && head * 2 > log.length) {
    log.splice(0, head);
    head = 0;
  }
  entry.head = head;
  const counted = log.length - head;
  if (counted >= limit) {
    // The oldest request still counted leaves the window at log[head + counted - limit] + windowMs.
    return { allowed: false, remaining: 0, retryAfterMs: Math.max(0, log[head + counted - limit] + windowMs - now) };
  }
  log.push(now);
  entry.last = now;
  return { allowed: true, remaining: limit - counted - 1, retryAfterMs: 0 };
}

function drip(entry: BucketEntry, now: number): RateDecision {
  const { limit, windowMs } = entry;
  const capacity = limit * windowMs;
  // A clock that steps back refills nothing.
  entry.level = Math.min(capacity, entry.level + Math.max(0, now - entry.last) * limit);
  entry.last = Math.max(entry.last, now);
  if (entry.level < windowMs) return { allowed: false, remaining: 0, retryAfterMs: Math.ceil((windowMs - entry.level) / limit) };
  entry.level -= windowMs;
  return { allowed: true, remaining: Math.floor(entry.level / windowMs), retryAfterMs: 0 };
}
