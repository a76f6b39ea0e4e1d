/**
 * One sign-in at the upstream provider, as stored: its tokens and the user, sealed (never in
 * the clear), and what it belongs to.
 */
export interface UpstreamSessionEntry {
  /** The tokens and the user as compact JWE under a key derived from signIn's `secret`. */
  readonly sealed: string;
  /** The MCP authorization request it was made for (a hash of its client, redirect, state and challenge). */
  readonly binding: string;
  /** The MCP grant that holds it, once the code was exchanged: one grant per upstream sign-in. */
  readonly grantId?: string;
  /** Bumped on every change: replacements compare it (refreshes on several replicas). */
  readonly version: number;
}

/**
 * Where upstream sign-ins are kept. `MemoryUpstreamSessionStore` keeps them in this process;
 * replicas need one they share (the entries are sealed, so any key-value store will do).
 */
export interface UpstreamSessionStore {
  get(id: string): Promise<UpstreamSessionEntry | undefined>;
  add(id: string, entry: UpstreamSessionEntry, ttlSec: number): Promise<void>;
  /** Replaces the entry if its version is still `expectedVersion` (compare and set); false otherwise or when it is gone. */
  replace(id: string, expectedVersion: number, next: UpstreamSessionEntry, ttlSec: number): Promise<boolean>;
  /** Removes the entry and returns it: whoever takes it revokes its tokens, once. */
  take(id: string): Promise<UpstreamSessionEntry | undefined>;
}

/** Upstream sign-ins in this process's memory: for one replica, and for development. */
export class MemoryUpstreamSessionStore implements UpstreamSessionStore {
  private readonly entries = new Map<string, { entry: UpstreamSessionEntry; until: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  async get(id: string): Promise<UpstreamSessionEntry | undefined> {
    return this.current(id);
  }

  async add(id: string, entry: UpstreamSessionEntry, ttlSec: number): Promise<void> {
    this.sweep();
    this.entries.set(id, { entry, until: this.now() + ttlSec * 1000 });
  }

  async replace(id: string, expectedVersion: number, next: UpstreamSessionEntry, ttlSec: number): Promise<boolean> {
    // Read and written without an await between: concurrent replacements see each other.
    const current = this.current(id);
    if (current === undefined || current.version !== expectedVersion) return false;
    this.entries.set(id, { entry: next, until: this.now() + ttlSec * 1000 });
    return true;
  }

  async take(id: string): Promise<UpstreamSessionEntry | undefined> {
    const entry = this.current(id);
    this.entries.delete(id);
    return entry;
  }

  private current(id: string): UpstreamSessionEntry | undefined {
    const found = this.entries.get(id);
    if (found === undefined) return undefined;
    if (found.until <= this.now()) {
      this.entries.delete(id);
      return undefined;
    }
    return found.entry;
  }

  private sweep(): void {
    if (this.entries.size < 1024) return;
    const now = this.now();
    for (const [id, { until }] of this.entries) if (until <= now) this.entries.delete(id);
  }
}
