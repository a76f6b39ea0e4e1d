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

interface Entry {
  readonly group: string;
  readonly generation: number;
  readonly value: string;
  readonly expiresAt: number;
  readonly bytes: number;
}

/** A group's generation (bumped by `invalidate`) and how many entries of it are kept. */
interface Group {
  generation: number;
  count: number;
}

/**
 * Cached results in this process: a bounded LRU (entries and bytes), a TTL per entry, and
 * `invalidate(group)` in O(1): the group's generation is bumped, and its older entries are
 * dropped when next read or evicted. One replica only; replicas share `RedisResultCache`.
 */
export class MemoryResultCache implements ResultCacheStore {
  private readonly entries = new Map<string, Entry>();
  private readonly groups = new Map<string, Group>();
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
    return this.entries.size;
  }

  /** Bytes the kept entries take (see `maxBytes`). */
  get totalBytes(): number {
    return this.bytes;
  }

  async get(group: string, key: string): Promise<{ value: string; ttlMs: number } | undefined> {
    const id = entryId(group, key);
    const entry = this.entries.get(id);
    if (entry === undefined) return undefined;
    const left = entry.expiresAt - this.now();
    if (left <= 0 || this.groups.get(group)?.generation !== entry.generation) {
      this.drop(id, entry);
      return undefined;
    }
    // Most recently used last: eviction takes from the front.
    this.entries.delete(id);
    this.entries.set(id, entry);
    return { value: entry.value, ttlMs: left };
  }

  async set(group: string, key: string, value: string, ttlMs: number): Promise<void> {
    const id = entryId(group, key);
    const before = this.entries.get(id);
    if (before !== undefined) this.drop(id, before);
    const bytes = 2 * (group.length + key.length + value.length);
    if (!(ttlMs > 0) || bytes > this.maxBytes) return;
    let record = this.groups.get(group);
    if (record === undefined) this.groups.set(group, (record = { generation: 0, count: 0 }));
    record.count++;
    this.entries.set(id, { group, generation: record.generation, value, expiresAt: this.now() + ttlMs, bytes });
    this.bytes += bytes;
    while (this.entries.size > this.maxEntries || this.bytes > this.maxBytes) {
      const [oldest, entry] = this.entries.entries().next().value as [string, Entry];
      this.drop(oldest, entry);
    }
  }

  async invalidate(group: string): Promise<void> {
    // A group with no entries has nothing to hide; its record is made again, at 0, by its next set.
    const record = this.groups.get(group);
    if (record !== undefined) record.generation++;
  }

  private drop(id: string, entry: Entry): void {
    this.entries.delete(id);
    this.bytes -= entry.bytes;
    const record = this.groups.get(entry.group)!;
    // The last entry gone, the record goes too: invalidated groups do not pile up.
    if (--record.count === 0) this.groups.delete(entry.group);
  }
}

/** One id per (group, key): the group's length first, so no group and key pair reads as another. */
function entryId(group: string, key: string): string {
  return `${group.length}:${group}${key}`;
}

function positiveInteger(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value <= 0) throw new TypeError(`MemoryResultCache: ${name} must be a positive integer, not ${String(value)}`);
  return value;
}
