import type { ClientCapabilities, Implementation, LoggingLevel } from '../session/types';

/**
 * What every replica must know of a handshake-era session to serve its next request: the
 * outcome of `initialize`, the client's log level and resource subscriptions, and the subject
 * the session belongs to. Plain JSON, so any store can keep it.
 */
export interface SessionRecord {
  readonly id: string;
  /** `initializing` until the client sends `notifications/initialized`. */
  state: 'initializing' | 'ready';
  protocolVersion: string;
  clientCapabilities: ClientCapabilities;
  clientInfo?: Implementation;
  logLevel?: LoggingLevel;
  /** Resource uris subscribed to with `resources/subscribe`. */
  subscriptions: string[];
  /** The subject that opened (or first used) the session; no other may use it. */
  owner?: string;
  /** Grows with every save, so a replica never takes an older record for a newer one. */
  version?: number;
}

/**
 * Keeps handshake-era sessions where every replica behind a load balancer can read them.
 * Records expire `ttlMs` after they were last written or touched.
 */
export interface SessionStore {
  get(id: string): Promise<SessionRecord | undefined>;
  set(record: SessionRecord, ttlMs: number): Promise<void>;
  /**
   * Compare-and-set: writes the record only when the stored one is still the one read, by
   * its `version` (`expectedVersion` undefined: nothing, or a record without a version, is
   * stored); true when written. Two replicas changing one session at the same instant then
   * merge instead of the later write winning: the one that lost reads again and retries.
   * Optional: a store without it is written with `set`, the later write winning.
   */
  replace?(record: SessionRecord, ttlMs: number, expectedVersion: number | undefined): Promise<boolean>;
  /** Extends the record's life; false when it is gone (deleted or expired). */
  touch(id: string, ttlMs: number): Promise<boolean>;
  delete(id: string): Promise<void>;
}

/** A SessionStore in this process: for several servers in one process, and for tests. */
export class InMemorySessionStore implements SessionStore {
  private readonly records = new Map<string, { json: string; expiresAt: number }>();

  async get(id: string): Promise<SessionRecord | undefined> {
    const entry = this.live(id);
    // A copy, as a remote store would give: replicas must not share objects.
    return entry && (JSON.parse(entry.json) as SessionRecord);
  }

  async set(record: SessionRecord, ttlMs: number): Promise<void> {
    this.records.set(record.id, { json: JSON.stringify(record), expiresAt: Date.now() + ttlMs });
  }

  async replace(record: SessionRecord, ttlMs: number, expectedVersion: number | undefined): Promise<boolean> {
    const entry = this.live(record.id);
    const current = entry && (JSON.parse(entry.json) as SessionRecord).version;
    if (current !== expectedVersion) return false;
    await this.set(record, ttlMs);
    return true;
  }

  async touch(id: string, ttlMs: number): Promise<boolean> {
    const entry = this.live(id);
    if (entry) entry.expiresAt = Date.now() + ttlMs;
    return entry !== undefined;
  }

  async delete(id: string): Promise<void> {
    this.records.delete(id);
  }

  private live(id: string): { json: string; expiresAt: number } | undefined {
    const entry = this.records.get(id);
    if (entry && entry.expiresAt <= Date.now()) this.records.delete(id);
    return entry && entry.expiresAt > Date.now() ? entry : undefined;
  }
}
