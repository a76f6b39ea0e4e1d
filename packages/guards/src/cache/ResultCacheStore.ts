/**
 * Where cached results are kept: in memory (`MemoryResultCache`, a bounded LRU, one replica) or
 * shared by replicas (`RedisResultCache` in `@typemcp/redis`). Entries are grouped by item
 * (`group`: one tool, resource or prompt), so everything an item cached is dropped at once
 * (`invalidate`) without listing keys. A store that cannot answer rejects; the cache plugin then
 * runs the item as if nothing were cached.
 */
export interface ResultCacheStore {
  /** The entry under `key` of `group`, if one is there and not expired, with the ms it has left. */
  get(group: string, key: string): Promise<{ value: string; ttlMs: number } | undefined>;
  /** Keeps `value` (a serialised result) under `key` of `group` for `ttlMs`. */
  set(group: string, key: string, value: string, ttlMs: number): Promise<void>;
  /** Drops every entry of `group` (entries set while this runs may survive it; a later get never sees older ones). */
  invalidate(group: string): Promise<void>;
}
