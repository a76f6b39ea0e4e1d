/**
 * Where DPoP proofs already used are remembered (RFC 9449 §11.1). Behind an interface so that
 * replicas can share one (e.g. in Redis: `SET key 1 NX PXAT expiresAt`).
 */
export interface DpopReplayCache {
  /**
   * Records a proof's id until `expiresAt` (epoch milliseconds): true when it was new, false
   * when it was recorded before, i.e. the proof is replayed (or the cache cannot tell).
   */
  add(id: string, expiresAt: number): boolean | Promise<boolean>;
}

/**
 * Proof ids in this process's memory, each until it expires, at most `maxEntries`. When full,
 * the oldest entry is dropped and every proof expiring no later than it is refused from then
 * on: a proof the cache forgot can never pass as new, at the cost of refusing proofs close to
 * the end of their window under a flood.
 */
export class MemoryDpopReplayCache implements DpopReplayCache {
  private readonly entries = new Map<string, number>();
  /** Proofs expiring at or before this were possibly forgotten. */
  private floor = 0;
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(options: { maxEntries?: number; now?: () => number } = {}) {
    this.maxEntries = options.maxEntries ?? 100_000;
    this.now = options.now ?? Date.now;
  }

  add(id: string, expiresAt: number): boolean {
    const now = this.now();
    if (expiresAt <= this.floor) return false;
    const known = this.entries.get(id);
    if (known !== undefined && known > now) return false;
    this.sweep(now);
    while (this.entries.size >= this.maxEntries) {
      const [oldest, until] = this.entries.entries().next().value!;
      this.entries.delete(oldest);
      if (until > this.floor) this.floor = until;
    }
    if (expiresAt <= this.floor) return false;
    this.entries.delete(id);
    this.entries.set(id, expiresAt);
    return true;
  }

  get size(): number {
    return this.entries.size;
  }

  /** Drops expired entries from the front: entries come in about the order they expire. */
  private sweep(now: number): void {
    for (const [id, until] of this.entries) {
      if (until > now) return;
      this.entries.delete(id);
    }
  }
}
