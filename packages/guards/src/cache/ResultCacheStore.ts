/**
 * Where cached results are kept: in memory (`MemoryResultCache`, a bounded LRU, one replica) or
 * shared by replicas (`RedisResultCache` in `@typemcp/redis`). Entries are grouped by item
 * (`group`: one tool, resource or prompt), so everything an item cached is dropped at once
 * (`invalidate`) without listing keys.
 *
 * Each method answers with a value or a promise of it: a store in this process answers at once
 * (then a cached synchronous item stays synchronous, as without the cache), a remote one with
 * a promise. A store that cannot answer throws or rejects; the cache plugin then runs the item
 * as if nothing were cached.
 *
 * `key` is whole: the caller, its grant and the item's arguments as canonical JSON, as long as
 * those are. A store that needs short keys hashes them itself; one that does not (a Map takes
 * any string) keeps them as they are.
 */
export interface ResultCacheStore {
  /** The entry under `key` of `group`, if one is there and not expired, with the ms it has left. */
  get(group: string, key: string): { value: string; ttlMs: number } | undefined | Promise<{ value: string; ttlMs: number } | undefined>;
  /** Keeps `value` (a serialised result) under `key` of `group` for `ttlMs`. */
  set(group: string, key: string, value: string, ttlMs: number): void | Promise<void>;
  /** Drops every entry of `group` (entries set while this runs may survive it; a later get never sees older ones). */
  invalidate(group: string): void | Promise<void>;
}
