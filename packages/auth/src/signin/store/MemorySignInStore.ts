import type { OAuthClient } from '../clients/Client';
import type { AuthorizationCode, Grant, PendingAuthorization, SignInStore, StoredKey } from './SignInStore';

/** Entries that expire: read lazily, and swept as the map grows so forgotten ones do not pile up. */
class ExpiringMap<V> {
  private readonly entries = new Map<string, { value: V; until: number }>();
  private sweepAt = 1024;

  constructor(private readonly now: () => number) {}

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.until <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: string, value: V, ttlSec: number): void {
    this.entries.set(key, { value, until: this.now() + ttlSec * 1000 });
    if (this.entries.size >= this.sweepAt) this.sweep();
  }

  /** Keeps the value, with the time it had left. */
  replace(key: string, value: V): void {
    const entry = this.entries.get(key);
    if (entry !== undefined) entry.value = value;
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }

  private sweep(): void {
    const now = this.now();
    for (const [key, entry] of this.entries) if (entry.until <= now) this.entries.delete(key);
    this.sweepAt = Math.max(1024, this.entries.size * 2);
  }
}

const FOREVER_SEC = 100 * 365 * 24 * 3600;

/**
 * The authorization server's state in this process: for one replica, and for development.
 * A restart forgets every client, grant and consent (tokens already issued stay valid until
 * they expire only if the keys survive, which here they do not).
 */
export class MemorySignInStore implements SignInStore {
  private readonly clientMap: ExpiringMap<OAuthClient>;
  private readonly codeMap: ExpiringMap<{ code: AuthorizationCode; firstUse: boolean }>;
  private readonly grantMap: ExpiringMap<Grant>;
  private readonly consentMap = new Map<string, readonly string[]>();
  private readonly requestMap: ExpiringMap<PendingAuthorization>;
  private readonly counterMap: ExpiringMap<number>;
  /** Grants revoked before they were added. */
  private readonly revokedEarly: ExpiringMap<true>;
  private storedKeys: readonly StoredKey[] = [];
  /** Registered clients not used yet, oldest first: anyone may register, so they are bounded. */
  private readonly unusedClients = new Set<string>();
  private readonly maxUnusedClients: number;

  /**
   * `maxUnusedClients` (default 10,000) bounds the registrations kept before a sign-in uses them;
   * past it the oldest is dropped, so a flood of registrations costs at most that many.
   */
  constructor(
    private readonly now: () => number = Date.now,
    options: { readonly maxUnusedClients?: number } = {},
  ) {
    this.maxUnusedClients = options.maxUnusedClients ?? 10_000;
    this.clientMap = new ExpiringMap(now);
    this.codeMap = new ExpiringMap(now);
    this.grantMap = new ExpiringMap(now);
    this.requestMap = new ExpiringMap(now);
    this.counterMap = new ExpiringMap(now);
    this.revokedEarly = new ExpiringMap(now);
  }

  readonly clients = {
    get: async (clientId: string) => this.clientMap.get(clientId),
    add: async (client: OAuthClient, unusedTtlSec: number) => {
      this.clientMap.set(client.clientId, client, unusedTtlSec);
      this.unusedClients.add(client.clientId);
      for (const oldest of this.unusedClients) {
        if (this.unusedClients.size <= this.maxUnusedClients) break;
        this.unusedClients.delete(oldest);
        this.clientMap.delete(oldest);
      }
    },
    markUsed: async (clientId: string) => {
      this.unusedClients.delete(clientId);
      const client = this.clientMap.get(clientId);
      if (client !== undefined) this.clientMap.set(clientId, client, FOREVER_SEC);
    },
  };

  readonly codes = {
    add: async (codeHash: string, code: AuthorizationCode, ttlSec: number) => this.codeMap.set(codeHash, { code, firstUse: true }, ttlSec),
    take: async (codeHash: string) => {
      const entry = this.codeMap.get(codeHash);
      if (entry?.firstUse) this.codeMap.replace(codeHash, { code: entry.code, firstUse: false });
      return entry;
    },
  };

  readonly grants = {
    add: async (grant: Grant, ttlSec: number) => this.grantMap.set(grant.id, this.revokedEarly.get(grant.id) ? { ...grant, revoked: true } : grant, ttlSec),
    get: async (grantId: string) => this.grantMap.get(grantId),
    rotate: async (grantId: string, expectedHash: string, next: { refreshHash: string; refreshExpiresAt: number }, ttlSec: number) => {
      const grant = this.grantMap.get(grantId);
      if (grant === undefined || grant.revoked || grant.refreshHash !== expectedHash) return false;
      const usedRefreshHashes = [...grant.usedRefreshHashes, expectedHash].slice(-MAX_USED_REFRESH_HASHES);
      this.grantMap.set(grantId, { ...grant, ...next, usedRefreshHashes }, ttlSec);
      return true;
    },
    revoke: async (grantId: string) => {
      const grant = this.grantMap.get(grantId);
      if (grant !== undefined) this.grantMap.replace(grantId, { ...grant, revoked: true });
      else this.revokedEarly.set(grantId, true, EARLY_REVOCATION_SEC);
    },
  };

  readonly consents = {
    get: async (userId: string, clientId: string) => this.consentMap.get(consentKey(userId, clientId)) ?? [],
    set: async (userId: string, clientId: string, scopes: readonly string[]) => void this.consentMap.set(consentKey(userId, clientId), [...scopes]),
  };

  readonly requests = {
    add: async (request: PendingAuthorization, ttlSec: number) => this.requestMap.set(request.id, request, ttlSec),
    take: async (id: string) => {
      const request = this.requestMap.get(id);
      this.requestMap.delete(id);
      return request;
    },
  };

  readonly keys = {
    list: async () => this.storedKeys,
    replace: async (expected: readonly StoredKey[], next: readonly StoredKey[]) => {
      const same = expected.length === this.storedKeys.length && expected.every((key, i) => key.kid === this.storedKeys[i].kid);
      if (same) this.storedKeys = [...next];
      return same;
    },
  };

  readonly counters = {
    hit: async (key: string, windowSec: number) => {
      const window = Math.floor(this.now() / (windowSec * 1000));
      const name = `${key}\u0000${window}`;
      const count = (this.counterMap.get(name) ?? 0) + 1;
      this.counterMap.set(name, count, windowSec);
      return count;
    },
  };
}

/** How long a revocation waits for its grant (a code lives 60 s). */
const EARLY_REVOCATION_SEC = 600;

/** A grant remembers this many exchanged refresh tokens, so their reuse is caught. */
const MAX_USED_REFRESH_HASHES = 64;

const consentKey = (userId: string, clientId: string) => JSON.stringify([userId, clientId]);
