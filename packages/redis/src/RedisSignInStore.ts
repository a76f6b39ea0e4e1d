import type { Cluster, Redis } from 'ioredis';
import type {
  AuthorizationCode,
  CheckedDocument,
  ClientDocumentStore,
  ClientStore,
  CodeStore,
  ConsentStore,
  Grant,
  GrantStore,
  KeyStore,
  OAuthClient,
  PendingAuthorization,
  PendingAuthorizationStore,
  RateCounter,
  SignInStore,
  StoredKey,
} from '@typemcp/auth';
import { RedisGuard } from './guard';
import { checkClient, invalidOption, keyPrefixOf, positiveInteger } from './keys';
import type { RedisStoreOptions } from './keys';
import { LuaScript } from './script';

/** Options of a RedisSignInStore. */
export interface RedisSignInStoreOptions extends RedisStoreOptions {
  /**
   * A command not answered within this many ms fails with an `UnavailableError` (default 5 000),
   * and every later one fails at once until a PING, sent every second, is answered: the sign-in
   * endpoints then answer 503 with `Retry-After` instead of waiting on a sick Redis.
   */
  commandTimeoutMs?: number;
  /** Told when Redis stops answering (with the cause) and when it answers again. */
  onAvailabilityChange?: (up: boolean, cause?: unknown) => void;
  /**
   * The registered clients kept before a sign-in uses them (default 10 000); past it the oldest
   * is dropped, so a flood of registrations costs Redis at most that many.
   */
  maxUnusedClients?: number;
  /** The clock, in epoch ms (default `Date.now`): the windows of `counters`, the lifetimes of `documents`. */
  now?: () => number;
}

/** How long a revocation waits for its grant: at least ten minutes (a code lives 60 s). */
const EARLY_REVOCATION_MS = 600_000;

/** A grant remembers this many exchanged refresh tokens, as the memory store does. */
const MAX_USED_REFRESH_HASHES = 64;

// KEYS: the client, the unused clients (a sorted set of ids by when they expire). ARGV: the
// client (JSON), ttl ms, its id, now, when it expires, the bound, the base of the client keys
// (same hash tag). Expired ids leave the set; past the bound the first to expire go, key and all.
const ADD_CLIENT = new LuaScript(`
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[4])
redis.call('ZADD', KEYS[2], ARGV[5], ARGV[3])
local over = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[6])
if over > 0 then
  local dropped = redis.call('ZPOPMIN', KEYS[2], over)
  for i = 1, #dropped, 2 do redis.call('DEL', ARGV[7] .. dropped[i]) end
end
`);

// KEYS: the client, the unused clients. ARGV: its id. Kept without expiry, out of the bound.
const MARK_USED = new LuaScript(`
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('PERSIST', KEYS[1])
`);

// KEYS: the code. ARGV: the code (JSON), ttl ms. A hash, so `take` can mark it used in place.
const ADD_CODE = new LuaScript(`
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'code', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
`);

// KEYS: the code. HSETNX of the used marker answers 1 to exactly one caller and keeps the TTL;
// the code stays, so a replay is known for what it is until the code expires.
const TAKE_CODE = new LuaScript(`
local code = redis.call('HGET', KEYS[1], 'code')
if not code then return false end
return { code, redis.call('HSETNX', KEYS[1], 'used', '1') }
`);

// KEYS: the grant, its early revocation. ARGV: ttl ms, then field/value pairs (each value JSON).
// A revocation that came first (a replayed code racing its first exchange) is applied here.
const ADD_GRANT = new LuaScript(`
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('HSET', KEYS[1], 'revoked', 'true') end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
`);

// KEYS: the grant, its early revocation. ARGV: how long an early revocation is remembered (ms).
// HSET keeps the grant's TTL: a revoked grant lives until it would have expired.
const REVOKE_GRANT = new LuaScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('HSET', KEYS[1], 'revoked', 'true')
else
  redis.call('SET', KEYS[2], '1', 'PX', ARGV[1])
end
`);

// KEYS: the grant. ARGV: expected hash (JSON), expected hash, next hash (JSON), next expiry
// (JSON), ttl ms, how many used hashes to keep. Compare and set: 1 when rotated, else 0.
const ROTATE_GRANT = new LuaScript(`
local state = redis.call('HMGET', KEYS[1], 'revoked', 'refreshHash', 'usedRefreshHashes')
if state[1] ~= 'false' or state[2] ~= ARGV[1] then return 0 end
local used = cjson.decode(state[3] or '[]')
used[#used + 1] = ARGV[2]
while #used > tonumber(ARGV[6]) do table.remove(used, 1) end
redis.call('HSET', KEYS[1], 'refreshHash', ARGV[3], 'refreshExpiresAt', ARGV[4], 'usedRefreshHashes', cjson.encode(used))
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1
`);

// KEYS: the keys' hash. ARGV: expected kids (JSON), next kids (JSON), next keys (JSON).
// The kid lists are compared as the strings JSON.stringify made: no JSON is parsed in Redis.
const REPLACE_KEYS = new LuaScript(`
local kids = redis.call('HGET', KEYS[1], 'kids') or '[]'
if kids ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'kids', ARGV[2], 'keys', ARGV[3])
return 1
`);

// KEYS: the window's counter. ARGV: the window in ms. A counter without a TTL (none is ever
// left so, but a stray one would count forever) gets one too.
const HIT = new LuaScript(`
local count = redis.call('INCR', KEYS[1])
if redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return count
`);

/** A lifetime in seconds as Redis takes it: whole ms, at least one (a life of zero ends at once). */
const ttlMs = (ttlSec: number) => Math.max(1, Math.ceil(ttlSec * 1000));

/**
 * The sign-in state in Redis, shared by every replica of a server with `signIn`: what one
 * replica issued, any other accepts at once. One key per client, code, grant, pending request,
 * document and counter window, under `<prefix>signin:`; the unused clients bounded as in
 * memory. Values are JSON as written: scripts compare and set whole values, and re-encode only
 * the list of used refresh hashes (strings). Every guarantee of the `SignInStore` contract
 * that involves a read and a write is one Lua script or one atomic command: codes taken once,
 * refresh tokens rotated by compare-and-set, early revocations, pending requests taken once
 * (GETDEL), keys replaced by compare-and-set. Keys one script touches together share a hash
 * tag (a grant and its early revocation; the clients and their bound), so the store runs on a
 * Redis Cluster. Every command is bounded (`commandTimeoutMs`).
 */
export class RedisSignInStore implements SignInStore {
  readonly clients: ClientStore;
  readonly codes: CodeStore;
  readonly grants: GrantStore;
  readonly consents: ConsentStore;
  readonly requests: PendingAuthorizationStore;
  readonly keys: KeyStore;
  readonly counters: RateCounter;
  readonly documents: ClientDocumentStore;
  private readonly guard: RedisGuard;

  /** `client`: an ioredis `Redis` or `Cluster`, which stays yours to quit. */
  constructor(client: Redis | Cluster, options?: RedisSignInStoreOptions) {
    checkClient(client, 'RedisSignInStore');
    const base = `${keyPrefixOf(options, 'RedisSignInStore')}signin:`;
    const commandTimeoutMs = positiveInteger(options?.commandTimeoutMs, 5_000, 'RedisSignInStore', 'commandTimeoutMs');
    const maxUnusedClients = positiveInteger(options?.maxUnusedClients, 10_000, 'RedisSignInStore', 'maxUnusedClients');
    for (const name of ['onAvailabilityChange', 'now'] as const) {
      if (options?.[name] !== undefined && typeof options[name] !== 'function') throw invalidOption(`RedisSignInStore: ${name} must be a function`);
    }
    const now = options?.now ?? Date.now;
    this.guard = new RedisGuard(client, { commandTimeoutMs, probeIntervalMs: Math.min(1_000, commandTimeoutMs), onChange: options?.onAvailabilityChange });
    const redis = this.guard.wrap();
    const parse = <T>(json: string | null): T | undefined => (json === null ? undefined : (JSON.parse(json) as T));
    const grantKeys = (grantId: string) => {
      const key = `${base}grant:{${grantId}}`;
      return [key, `${key}:revoked-early`];
    };

    // The clients and their bound share the hash tag {clients}: one slot on a Redis Cluster.
    const clientBase = `${base}{clients}client:`;
    const unusedClients = `${base}{clients}unused`;
    this.clients = {
      get: async (clientId: string) => parse<OAuthClient>(await redis.get(clientBase + clientId)),
      add: async (client: OAuthClient, unusedTtlSec: number) => {
        const at = now();
        const args = [JSON.stringify(client), ttlMs(unusedTtlSec), client.clientId, at, at + ttlMs(unusedTtlSec), maxUnusedClients, clientBase];
        await ADD_CLIENT.run(redis, [clientBase + client.clientId, unusedClients], args);
      },
      markUsed: async (clientId: string) => void (await MARK_USED.run(redis, [clientBase + clientId, unusedClients], [clientId])),
    };

    this.codes = {
      add: async (codeHash: string, code: AuthorizationCode, ttlSec: number) => void (await ADD_CODE.run(redis, [`${base}code:${codeHash}`], [JSON.stringify(code), ttlMs(ttlSec)])),
      take: async (codeHash: string) => {
        const taken = (await TAKE_CODE.run(redis, [`${base}code:${codeHash}`], [])) as [string, number] | null;
        return taken === null ? undefined : { code: JSON.parse(taken[0]) as AuthorizationCode, firstUse: taken[1] === 1 };
      },
    };

    this.grants = {
      add: async (grant: Grant, ttlSec: number) => {
        // One field per property, its JSON: the scripts compare and set fields, never re-encode the grant.
        const pairs = Object.entries(grant).flatMap(([field, value]) => (value === undefined ? [] : [field, JSON.stringify(value)]));
        await ADD_GRANT.run(redis, grantKeys(grant.id), [ttlMs(ttlSec), ...pairs]);
      },
      get: async (grantId: string) => {
        const fields = await redis.hgetall(grantKeys(grantId)[0]);
        if (Object.keys(fields).length === 0) return undefined;
        return Object.fromEntries(Object.entries(fields).map(([field, json]) => [field, JSON.parse(json)])) as Grant;
      },
      rotate: async (grantId: string, expectedHash: string, next: { refreshHash: string; refreshExpiresAt: number }, ttlSec: number) => {
        const args = [JSON.stringify(expectedHash), expectedHash, JSON.stringify(next.refreshHash), JSON.stringify(next.refreshExpiresAt), ttlMs(ttlSec), MAX_USED_REFRESH_HASHES];
        return (await ROTATE_GRANT.run(redis, [grantKeys(grantId)[0]], args)) === 1;
      },
      revoke: async (grantId: string) => void (await REVOKE_GRANT.run(redis, grantKeys(grantId), [EARLY_REVOCATION_MS])),
    };

    // One hash per user, a field per client: no expiry, as in memory.
    this.consents = {
      get: async (userId: string, clientId: string) => parse<string[]>(await redis.hget(`${base}consents:${userId}`, clientId)) ?? [],
      set: async (userId: string, clientId: string, scopes: readonly string[]) => void (await redis.hset(`${base}consents:${userId}`, clientId, JSON.stringify(scopes))),
    };

    this.requests = {
      add: async (request: PendingAuthorization, ttlSec: number) => void (await redis.set(`${base}request:${request.id}`, JSON.stringify(request), 'PX', ttlMs(ttlSec))),
      take: async (id: string) => parse<PendingAuthorization>(await redis.getdel(`${base}request:${id}`)),
    };

    this.keys = {
      list: async () => parse<StoredKey[]>(await redis.hget(`${base}keys`, 'keys')) ?? [],
      replace: async (expected: readonly StoredKey[], next: readonly StoredKey[]) => {
        const kids = (keys: readonly StoredKey[]) => JSON.stringify(keys.map((key) => key.kid));
        return (await REPLACE_KEYS.run(redis, [`${base}keys`], [kids(expected), kids(next), JSON.stringify(next)])) === 1;
      },
    };

    // The window is in the key (with its length, so two lengths never share a counter); the
    // counter outlives its window, since its TTL starts at the window's first hit.
    this.counters = {
      hit: async (key: string, windowSec: number) => {
        const window = Math.floor(now() / (windowSec * 1000));
        return (await HIT.run(redis, [`${base}count:${windowSec}:${window}:${key}`], [ttlMs(windowSec)])) as number;
      },
    };

    this.documents = {
      get: async (clientId: string) => parse<CheckedDocument>(await redis.get(`${base}document:${clientId}`)),
      set: async (clientId: string, entry: CheckedDocument) => {
        const left = entry.expiresAt - now();
        if (left > 0) await redis.set(`${base}document:${clientId}`, JSON.stringify(entry), 'PX', Math.ceil(left));
      },
    };
  }

  /** True while Redis answers, as far as this store knows. */
  get available(): boolean {
    return this.guard.up;
  }

  /** Stops watching for Redis to answer again (a PING runs only while it does not). The connection stays open. */
  close(): void {
    this.guard.close();
  }
}
