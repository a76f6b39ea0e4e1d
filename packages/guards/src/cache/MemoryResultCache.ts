import type { ResultCacheStore } from './ResultCacheStore';

/** Bounds and clock of a `MemoryResultCache`. */
export interface MemoryResultCacheOptions {
  /** The most entries kept; the least recently used go first. Default 1,000. */
  readonly maxEntries?: number;
  /**
   * The most bytes the entries take, counted as their strings' size in memory (two bytes per
   * UTF-16 unit of group, key and value). Default 32 MiB. An entry larger than this is not kept.
   */
  readonly maxBytes?: number;
  /** The clock entries expire by, in ms (default `Date.now`): a test's fake clock. */
  readonly now?: () => number;
}

/** One kept result: in its group's map, and in the LRU list of all entries (least recently used first). */
interface Entry {
  readonly group: Group;
  readonly key: string;
  readonly generation: number;
  readonly value: string;
  readonly expiresAt: number;
  readonly bytes: number;
  prev: Entry | undefined;
  next: Entry | undefined;
}

/** A group's entries, its generation (bumped by `invalidate`), and its name. */
interface Group {
  readonly name: string;
  readonly entries: Map<string, Entry>;
  generation: number;
}

/**
 * Cached results in this process: a bounded LRU (entries and bytes), a TTL per entry, and
 * `invalidate(group)` in O(1): the group's generation is bumped, and its older entries are
 * dropped when next read or evicted. It answers synchronously, so a cached synchronous item
 * stays synchronous. Keys are kept whole (a Map takes any string): no hashing. One replica
 * only; replicas share `RedisResultCache`.
 */
export class MemoryResultCache implements ResultCacheStore {
  // Entries by group, then by key: no id is made per call, and the key string a get hashed is hashed once for the set after it.
  private readonly groups = new Map<string, Group>();
  // The LRU order is a list through the entries, not a Map's insertion order: evicting through a Map iterator costs a call more than everything else here (mostly in GC).
  private head: Entry | undefined;
  private tail: Entry | undefined;
  private count = 0;
  private readonly maxEntries: number;
  private readonly maxBytes: number;
  private readonly now: () => number;
  private bytes = 0;

  constructor(options: MemoryResultCacheOptions = {}) {
    if (typeof options !== 'object' || options === null) throw new TypeError('MemoryResultCache: options must be an object');
    this.maxEntries = positiveInteger(options.maxEntries, 1_000, 'maxEntries');
    this.maxBytes = positiveInteger(options.maxBytes, 32 * 1024 * 1024, 'maxBytes');
    if (options.now !== undefined && typeof options.now !== 'function') throw new TypeError('MemoryResultCache: now must be a function returning ms');
    this.now = options.now ?? Date.now;
  }

  /** Entries kept now, stale and expired ones not yet dropped included. */
  get size(): number {
    return this.count;
  }

  /** Bytes the kept entries take (see `maxBytes`). */
  get totalBytes(): number {
    return this.bytes;
  }

  /** The entry under `key` of `group`, if there and not expired, with the ms it has left; at once. */
  get(group: string, key: string): { value: string; ttlMs: number } | undefined {
    const record = this.groups.get(group);
    if (record === undefined) return undefined;
    const entry = record.entries.get(key);
    if (entry === undefined) return undefined;
    const left = entry.expiresAt - this.now();
    if (left <= 0 || entry.generation !== record.generation) {
      this.drop(entry);
      return undefined;
    }
    // Most recently used last: eviction takes from the head.
    if (entry !== this.tail) {
      this.unlink(entry);
      this.append(entry);
    }
    return { value: entry.value, ttlMs: left };
  }

  /** Keeps `value` under `key` of `group` for `ttlMs`, evicting the least recently used beyond the bounds; at once. */
  set(group: string, key: string, value: string, ttlMs: number): void {
    let record = this.groups.get(group);
    const before = record?.entries.get(key);
    if (before !== undefined) {
      this.drop(before);
      // Its last entry gone, the group's record went with it.
      if (record!.entries.size === 0) record = undefined;
    }
    const bytes = 2 * (group.length + key.length + value.length);
    if (!(ttlMs > 0) || bytes > this.maxBytes) return;
    if (record === undefined) this.groups.set(group, (record = { name: group, entries: new Map(), generation: 0 }));
    const entry: Entry = { group: record, key, generation: record.generation, value, expiresAt: this.now() + ttlMs, bytes, prev: undefined, next: undefined };
    record.entries.set(key, entry);
    this.append(entry);
    this.count++;
    this.bytes += bytes;
    while (this.count > this.maxEntries || this.bytes > this.maxBytes) this.drop(this.head!);
  }

  /** Hides every entry of `group` at once (O(1)): its generation moves on. */
  invalidate(group: string): void {
    // A group with no entries has nothing to hide; its record is made again, at 0, by its next set.
    const record = this.groups.get(group);
    if (record !== undefined) record.generation++;
  }

  private drop(entry: Entry): void {
    const record = entry.group;
    record.entries.delete(entry.key);
    this.unlink(entry);
    this.count--;
    this.bytes -= entry.bytes;
    // The last entry gone, the record goes too: invalidated groups do not pile up.
    if (record.entries.size === 0) this.groups.delete(record.name);
  }

  private append(entry: Entry): void {
    entry.prev = this.tail;
    entry.next = undefined;
    if (this.tail === undefined) this.head = entry;
    else this.tail.next = entry;
    this.tail = entry;
  }

  private unlink(entry: Entry): void {
    if (entry.prev === undefined) this.head = entry.next;
    else entry.prev.next = entry.next;
    if (entry.next === undefined) this.tail = entry.prev;
    else entry.next.prev = entry.prev;
    entry.prev = entry.next = undefined;
  }
}

function positiveInteger(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value <= 0) throw new TypeError(`MemoryResultCache: ${name} must be a positive integer, not ${String(value)}`);
  return value;
}
