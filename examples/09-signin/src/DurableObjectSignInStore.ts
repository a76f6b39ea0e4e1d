import type { AuthorizationCode, Grant, PendingAuthorization, SignInStore, StoredKey } from '@typemcp/auth';
import type { OAuthClient } from '@typemcp/auth';

/** The parts of the Workers API this file uses (@cloudflare/workers-types is not installed). */
export interface DurableObjectStorage {
  get<T>(key: string): Promise<T | undefined>;
  put<T>(key: string, value: T): Promise<void>;
  delete(key: string): Promise<boolean>;
  /** Keys in order, from the first. */
  list<T>(options?: { prefix?: string; limit?: number }): Promise<Map<string, T>>;
  setAlarm(scheduledTime: number): Promise<void>;
}

export interface DurableObjectState {
  readonly storage: DurableObjectStorage;
}

export interface DurableObjectNamespace {
  idFromName(name: string): unknown;
  get(id: unknown): { fetch(url: string, init?: RequestInit): Promise<Response> };
}

/**
 * A `SignInStore` for Cloudflare Workers: every isolate reaches one Durable Object, which keeps
 * the state in its storage. A Durable Object runs one request at a time and holds other
 * requests while it awaits its storage, so each operation (a code's first use, a refresh
 * token's compare-and-set) is atomic. One object serves every sign-in and every token check
 * (`grants.get`): enough for the rate at which people sign in; name several objects by user
 * or client for more.
 *
 * Bind the class in wrangler.toml (`durable_objects.bindings`, `migrations` with
 * `new_sqlite_classes = ["SignInStoreObject"]`) and export it from the Worker's module. The
 * object answers `fetch`, not RPC: RPC needs `extends DurableObject` from `cloudflare:workers`,
 * which neither esbuild (the bundle) nor Node (loading the entry to precompile the validators)
 * can resolve when `typemcp build` makes the bundle.
 */
export function durableObjectSignInStore(namespace: DurableObjectNamespace, name = 'sign-in'): SignInStore {
  const call = async (part: string, method: string, args: unknown[]): Promise<unknown> => {
    // A stub per call: it is cheap, and an I/O object is not carried from one request to the next.
    const response = await namespace.get(namespace.idFromName(name)).fetch('https://sign-in-store/', { method: 'POST', body: JSON.stringify({ part, method, args }) });
    if (!response.ok) throw new Error(`the sign-in store answered ${response.status} to ${part}.${method}: ${await response.text()}`);
    return ((await response.json()) as { value?: unknown }).value;
  };
  const remote = (part: keyof typeof OPERATIONS) => Object.fromEntries(OPERATIONS[part].map((method) => [method, (...args: unknown[]) => call(part, method, args)]));
  return {
    clients: remote('clients') as unknown as SignInStore['clients'],
    codes: remote('codes') as unknown as SignInStore['codes'],
    grants: remote('grants') as unknown as SignInStore['grants'],
    consents: remote('consents') as unknown as SignInStore['consents'],
    requests: remote('requests') as unknown as SignInStore['requests'],
    keys: remote('keys') as unknown as SignInStore['keys'],
    counters: remote('counters') as unknown as SignInStore['counters'],
  };
}

/** What the object answers: every operation of a `SignInStore` but the optional `documents`. */
const OPERATIONS = {
  clients: ['get', 'add', 'markUsed'],
  codes: ['add', 'take'],
  grants: ['add', 'get', 'rotate', 'revoke'],
  consents: ['get', 'set'],
  requests: ['add', 'take'],
  keys: ['list', 'replace'],
  counters: ['hit'],
} as const;

/** The Durable Object behind {@link durableObjectSignInStore}. */
export class SignInStoreObject {
  private readonly store: StorageSignInStore;

  /** `options`: the clock and the bound of unused registrations (tests); the platform passes `state` and `env`. */
  constructor(state: DurableObjectState, env?: unknown, options: StorageSignInStoreOptions = {}) {
    this.store = new StorageSignInStore(state.storage, options);
  }

  async fetch(request: Request): Promise<Response> {
    const { part, method, args } = (await request.json()) as { part: keyof typeof OPERATIONS; method: string; args: unknown[] };
    if (!Object.hasOwn(OPERATIONS, part) || !(OPERATIONS[part] as readonly string[]).includes(method) || !Array.isArray(args)) {
      return new Response(`there is no operation ${String(part)}.${String(method)}`, { status: 400 });
    }
    const operation = (this.store[part] as unknown as Record<string, (...given: unknown[]) => Promise<unknown>>)[method]!;
    return Response.json({ value: await operation(...args) });
  }

  /** Deletes what expired; set by the first write that expires. */
  async alarm(): Promise<void> {
    await this.store.sweep();
  }
}

/** A value and when it expires (epoch ms; null: kept until replaced or deleted). */
interface Entry<V> {
  value: V;
  until: number | null;
}

const SWEEP_EVERY_MS = 3600_000;
/** How long a revocation waits for its grant (a code lives 60 s), as MemorySignInStore does. */
const EARLY_REVOCATION_SEC = 600;
/** A grant remembers this many exchanged refresh tokens, so their reuse is caught. */
const MAX_USED_REFRESH_HASHES = 64;

interface StorageSignInStoreOptions {
  readonly now?: () => number;
  /** Registrations kept before a sign-in uses them, as MemorySignInStore bounds them; default 10,000. */
  readonly maxUnusedClients?: number;
}

/**
 * The store's semantics (those of MemorySignInStore) over a Durable Object's storage. Anyone
 * may register, so registrations no sign-in used are bounded: each has an entry
 * `unused:<time added>:<id>`, listed oldest first, and past the bound the oldest are dropped.
 */
class StorageSignInStore implements SignInStore {
  private sweepScheduled = false;
  private readonly now: () => number;
  private readonly maxUnusedClients: number;

  constructor(
    private readonly storage: DurableObjectStorage,
    options: StorageSignInStoreOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.maxUnusedClients = options.maxUnusedClients ?? 10_000;
  }

  private async entry<V>(key: string): Promise<Entry<V> | undefined> {
    const entry = await this.storage.get<Entry<V>>(key);
    if (entry === undefined || entry.until === null || entry.until > this.now()) return entry;
    await this.storage.delete(key);
    return undefined;
  }

  private async read<V>(key: string): Promise<V | undefined> {
    return (await this.entry<V>(key))?.value;
  }

  private async write<V>(key: string, value: V, ttlSec: number | null): Promise<void> {
    await this.storage.put<Entry<V>>(key, { value, until: ttlSec === null ? null : this.now() + ttlSec * 1000 });
    if (ttlSec !== null && !this.sweepScheduled) {
      this.sweepScheduled = true;
      await this.storage.setAlarm(this.now() + SWEEP_EVERY_MS);
    }
  }

  /** Keeps the value, with the time it had left. */
  private async replace<V>(key: string, entry: Entry<V>, value: V): Promise<void> {
    await this.storage.put<Entry<V>>(key, { value, until: entry.until });
  }

  async sweep(): Promise<void> {
    this.sweepScheduled = false;
    let expiring = false;
    let unused = 0;
    for (const [key, entry] of await this.storage.list<Entry<unknown>>()) {
      if (entry.until === null) continue;
      if (entry.until <= this.now()) await this.storage.delete(key);
      else {
        expiring = true;
        if (key.startsWith('unused:')) unused++;
      }
    }
    await this.write('unused-count', unused, null);
    if (expiring) {
      this.sweepScheduled = true;
      await this.storage.setAlarm(this.now() + SWEEP_EVERY_MS);
    }
  }

  readonly clients = {
    get: (clientId: string) => this.read<OAuthClient>(`client:${clientId}`),
    add: async (client: OAuthClient, unusedTtlSec: number) => {
      const unusedKey = `unused:${String(this.now()).padStart(16, '0')}:${client.clientId}`;
      await this.write(`client:${client.clientId}`, client, unusedTtlSec);
      await this.write(unusedKey, client.clientId, unusedTtlSec);
      await this.write(`unused-key:${client.clientId}`, unusedKey, unusedTtlSec);
      let count = ((await this.read<number>('unused-count')) ?? 0) + 1;
      if (count > this.maxUnusedClients) {
        for (const [oldest, entry] of await this.storage.list<Entry<string>>({ prefix: 'unused:', limit: count - this.maxUnusedClients })) {
          await this.storage.delete(oldest);
          await this.storage.delete(`unused-key:${entry.value}`);
          await this.storage.delete(`client:${entry.value}`);
          count--;
        }
      }
      await this.write('unused-count', count, null);
    },
    markUsed: async (clientId: string) => {
      const client = await this.read<OAuthClient>(`client:${clientId}`);
      if (client === undefined) return;
      await this.write(`client:${clientId}`, client, null);
      const unusedKey = await this.read<string>(`unused-key:${clientId}`);
      if (unusedKey === undefined) return;
      await this.storage.delete(unusedKey);
      await this.storage.delete(`unused-key:${clientId}`);
      await this.write('unused-count', Math.max(0, ((await this.read<number>('unused-count')) ?? 1) - 1), null);
    },
  };

  readonly codes = {
    add: (codeHash: string, code: AuthorizationCode, ttlSec: number) => this.write(`code:${codeHash}`, { code, firstUse: true }, ttlSec),
    take: async (codeHash: string) => {
      const entry = await this.entry<{ code: AuthorizationCode; firstUse: boolean }>(`code:${codeHash}`);
      if (entry?.value.firstUse) await this.replace(`code:${codeHash}`, entry, { code: entry.value.code, firstUse: false });
      return entry?.value;
    },
  };

  readonly grants = {
    add: async (grant: Grant, ttlSec: number) => {
      const revokedEarly = (await this.read<true>(`revoked:${grant.id}`)) === true;
      await this.write(`grant:${grant.id}`, revokedEarly ? { ...grant, revoked: true } : grant, ttlSec);
    },
    get: (grantId: string) => this.read<Grant>(`grant:${grantId}`),
    rotate: async (grantId: string, expectedHash: string, next: { refreshHash: string; refreshExpiresAt: number }, ttlSec: number) => {
      const grant = await this.read<Grant>(`grant:${grantId}`);
      if (grant === undefined || grant.revoked || grant.refreshHash !== expectedHash) return false;
      const usedRefreshHashes = [...grant.usedRefreshHashes, expectedHash].slice(-MAX_USED_REFRESH_HASHES);
      await this.write(`grant:${grantId}`, { ...grant, ...next, usedRefreshHashes }, ttlSec);
      return true;
    },
    revoke: async (grantId: string) => {
      const entry = await this.entry<Grant>(`grant:${grantId}`);
      if (entry !== undefined) await this.replace(`grant:${grantId}`, entry, { ...entry.value, revoked: true });
      else await this.write(`revoked:${grantId}`, true, EARLY_REVOCATION_SEC);
    },
  };

  readonly consents = {
    get: async (userId: string, clientId: string) => (await this.read<readonly string[]>(`consent:${JSON.stringify([userId, clientId])}`)) ?? [],
    set: (userId: string, clientId: string, scopes: readonly string[]) => this.write(`consent:${JSON.stringify([userId, clientId])}`, [...scopes], null),
  };

  readonly requests = {
    add: (request: PendingAuthorization, ttlSec: number) => this.write(`request:${request.id}`, request, ttlSec),
    take: async (id: string) => {
      const request = await this.read<PendingAuthorization>(`request:${id}`);
      await this.storage.delete(`request:${id}`);
      return request;
    },
  };

  readonly keys = {
    list: async () => (await this.read<readonly StoredKey[]>('keys')) ?? [],
    replace: async (expected: readonly StoredKey[], next: readonly StoredKey[]) => {
      const current = await this.keys.list();
      const same = expected.length === current.length && expected.every((key, i) => key.kid === current[i]!.kid);
      if (same) await this.write('keys', [...next], null);
      return same;
    },
  };

  readonly counters = {
    hit: async (key: string, windowSec: number) => {
      const name = `counter:${JSON.stringify([key, Math.floor(this.now() / (windowSec * 1000))])}`;
      const count = ((await this.read<number>(name)) ?? 0) + 1;
      await this.write(name, count, windowSec);
      return count;
    },
  };
}
