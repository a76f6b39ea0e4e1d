/**
 * RedisSignInStore against a real redis-server and a real three-master Redis Cluster: the
 * SignInStore contract (the memory store's tests, test-support/signInStoreContract.ts) with
 * its concurrency, what Redis holds (JSON values, TTLs kept, hash tags), real expiry, and a
 * frozen Redis answered with UnavailableError (503 at the sign-in endpoints) within the bound.
 */
import 'reflect-metadata';
import { Cluster, Redis } from 'ioredis';
import { DefinitionError, McpServer, UnavailableError } from '@typemcp/core';
import { signIn } from '@typemcp/auth';
import { RedisSignInStore } from '@typemcp/redis';
import { codeOf, grantOf, signInStoreContract } from '../../../test-support/signInStoreContract';
import type { SignInStoreHarness } from '../../../test-support/signInStoreContract';
import { startRedisCluster } from '../../../test-support/redisCluster';
import type { RedisCluster } from '../../../test-support/redisCluster';
import { startRedis } from '../../../test-support/redisServer';
import { sleep, useRedis } from './redisTestSupport';

const redis = useRedis();

/**
 * A harness on Redis: each store gets a prefix of its own and a clock `offset` ms ahead of
 * Date.now; `advance` moves the clock and shortens every TTL under the prefix by as much
 * (deleting what that ends), on every master.
 */
function redisHarness(connect: () => Redis, masters: (client: Redis) => Redis[], prefix: () => string): SignInStoreHarness {
  let offset = 0;
  let current: { client: Redis; keyPrefix: string } | undefined;
  const now = () => Date.now() + offset;
  return {
    documents: true,
    now,
    store(options) {
      current = { client: connect(), keyPrefix: prefix() };
      return new RedisSignInStore(current.client, { ...options, keyPrefix: current.keyPrefix, now });
    },
    async advance(ms) {
      offset += ms;
      const { client, keyPrefix } = current!;
      for (const node of masters(client)) {
        for (const key of await scanAll(node, `${keyPrefix}*`)) {
          const left = await node.pttl(key);
          if (left < 0) continue;
          if (left <= ms) await node.del(key);
          else await node.pexpire(key, left - ms);
        }
      }
    },
  };
}

async function scanAll(node: Redis, match: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, found] = await node.scan(cursor, 'MATCH', match, 'COUNT', 1000);
    keys.push(...found);
    cursor = next;
  } while (cursor !== '0');
  return keys;
}

describe('on one redis-server', () => {
  signInStoreContract(redisHarness(() => redis.client(), (client) => [client], () => redis.prefix()));

  it('keeps JSON values under <prefix>signin:, the code TTL through its takes, the early revocation ten minutes, used clients forever', async () => {
    const client = redis.client();
    const keyPrefix = redis.prefix();
    const store = new RedisSignInStore(client, { keyPrefix });
    const oauthClient = { clientId: 'dcr-1', origin: 'registered' as const, redirectUris: ['https://app/cb'], authMethod: 'client_secret_basic' as const, secretHash: 'sha256-of-secret', createdAt: 1 };
    await store.clients.add(oauthClient, 86_400);
    expect(JSON.parse((await client.get(`${keyPrefix}signin:{clients}client:dcr-1`))!)).toEqual(oauthClient);
    expect(await client.pttl(`${keyPrefix}signin:{clients}client:dcr-1`)).toBeGreaterThan(86_000_000);
    expect(await client.zrange(`${keyPrefix}signin:{clients}unused`, '0', '-1')).toEqual(['dcr-1']);
    await store.clients.markUsed('dcr-1');
    expect(await client.pttl(`${keyPrefix}signin:{clients}client:dcr-1`)).toBe(-1);
    expect(await client.exists(`${keyPrefix}signin:{clients}unused`)).toBe(0);

    await store.codes.add('code-hash', codeOf('g1'), 60);
    await store.codes.take('code-hash');
    await store.codes.take('code-hash');
    expect(await client.hgetall(`${keyPrefix}signin:code:code-hash`)).toEqual({ code: JSON.stringify(codeOf('g1')), used: '1' });
    expect(await client.pttl(`${keyPrefix}signin:code:code-hash`)).toBeGreaterThan(59_000);

    await store.grants.revoke('not-yet');
    const early = await client.pttl(`${keyPrefix}signin:grant:{not-yet}:revoked-early`);
    expect(early).toBeGreaterThan(599_000);
    expect(early).toBeLessThanOrEqual(600_000);

    await store.grants.add(grantOf('g1'), 3600);
    await store.grants.revoke('g1');
    expect(await client.hget(`${keyPrefix}signin:grant:{g1}`, 'revoked')).toBe('true');
    expect(await client.pttl(`${keyPrefix}signin:grant:{g1}`)).toBeGreaterThan(3_599_000);
    expect(await client.exists(`${keyPrefix}signin:grant:{g1}:revoked-early`)).toBe(0);

    await store.consents.set('alice', 'c', ['notes:read']);
    expect(await client.hgetall(`${keyPrefix}signin:consents:alice`)).toEqual({ c: '["notes:read"]' });
    expect((await scanAll(client, `${keyPrefix}*`)).every((key) => key.startsWith(`${keyPrefix}signin:`))).toBe(true);
  });

  it('lets entries expire in real time too (lifetimes under a second are kept to the ms)', async () => {
    const store = new RedisSignInStore(redis.client(), { keyPrefix: redis.prefix() });
    await store.codes.add('short', codeOf('g'), 0.2);
    await store.grants.add(grantOf('short'), 0.2);
    expect(await store.codes.take('short')).toMatchObject({ firstUse: true });
    await sleep(300);
    expect(await store.codes.take('short')).toBeUndefined();
    expect(await store.grants.get('short')).toBeUndefined();
  });

  it('remembers the last 64 used refresh tokens of a grant', async () => {
    const { grants } = new RedisSignInStore(redis.client(), { keyPrefix: redis.prefix() });
    await grants.add(grantOf('g', { refreshHash: 'h0' }), 3600);
    for (let i = 0; i < 70; i++) expect(await grants.rotate('g', `h${i}`, { refreshHash: `h${i + 1}`, refreshExpiresAt: 1 }, 3600)).toBe(true);
    const used = (await grants.get('g'))!.usedRefreshHashes;
    expect(used).toHaveLength(64);
    expect([used[0], used[63]]).toEqual(['h6', 'h69']);
  });

  it('refuses what is not a client and invalid options', () => {
    const invalid = (make: () => unknown) => {
      try {
        make();
      } catch (error) {
        return error instanceof DefinitionError && error.code === 'INVALID_OPTION' ? error.message : error;
      }
      return 'accepted';
    };
    expect(invalid(() => new RedisSignInStore({ url: 'redis://x' } as unknown as Redis))).toMatch(/^RedisSignInStore: the first argument must be an ioredis client/);
    expect(invalid(() => new RedisSignInStore(redis.client(), { commandTimeoutMs: 0 }))).toBe('RedisSignInStore: commandTimeoutMs must be a positive integer, not 0');
    expect(invalid(() => new RedisSignInStore(redis.client(), { maxUnusedClients: 1.5 }))).toBe('RedisSignInStore: maxUnusedClients must be a positive integer, not 1.5');
    expect(invalid(() => new RedisSignInStore(redis.client(), { now: 5 as unknown as () => number }))).toBe('RedisSignInStore: now must be a function');
  });
});

describe('on a frozen redis-server', () => {
  it('fails within commandTimeoutMs with UnavailableError, then at once (the sign-in endpoints answer 503), and serves again after SIGCONT', async () => {
    const frozen = await startRedis();
    const client = new Redis(frozen.url);
    const changes: boolean[] = [];
    const store = new RedisSignInStore(client, { commandTimeoutMs: 300, onAvailabilityChange: (up) => changes.push(up) });
    const reported: string[] = [];
    const server = new McpServer({ name: 'frozen', version: '1.0.0', onError: (what) => reported.push(what) });
    try {
      server.plugin(signIn, { resource: 'http://127.0.0.1/mcp', secret: 'a test secret of at least thirty-two characters', authenticate: () => ({ id: 'alice' }), store });
      const handler = server.fetchHandler({ path: '/mcp' });
      await store.grants.add(grantOf('g'), 60);
      process.kill(frozen.pid, 'SIGSTOP');

      let started = performance.now();
      const first = await store.grants.get('g').catch((error: unknown) => error);
      expect(first).toBeInstanceOf(UnavailableError);
      expect(performance.now() - started).toBeLessThan(1_300);
      expect(store.available).toBe(false);
      started = performance.now();
      const token = await handler(new Request('http://127.0.0.1/oauth/token', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=refresh_token&refresh_token=g.x&client_id=dcr-1' }));
      expect({ status: token.status, retryAfter: token.headers.get('retry-after') }).toEqual({ status: 503, retryAfter: '1' });
      expect(performance.now() - started).toBeLessThan(250);
      // An MCP request's token is checked against keys and a grant in the store: 503 as well.
      const mcp = await handler(
        new Request('http://127.0.0.1/mcp', {
          method: 'POST',
          headers: { authorization: 'Bearer eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2ln', 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
        }),
      );
      expect({ status: mcp.status, retryAfter: mcp.headers.get('retry-after') }).toEqual({ status: 503, retryAfter: '1' });
      expect(changes).toEqual([false]);
      expect(reported).toEqual(['an HTTP request could not be served', 'plugin "@typemcp/auth/sign-in": a token could not be checked']);

      process.kill(frozen.pid, 'SIGCONT');
      for (let i = 0; i < 100 && !store.available; i++) await sleep(50);
      expect(await store.grants.get('g')).toEqual(grantOf('g'));
      expect(changes).toEqual([false, true]);
    } finally {
      try {
        process.kill(frozen.pid, 'SIGCONT');
      } catch {
        // already gone
      }
      await server.close();
      store.close();
      client.disconnect();
      await frozen.stop();
    }
  });
});

describe('on a three-master Redis Cluster', () => {
  let redisCluster: RedisCluster;
  const clients: Cluster[] = [];
  let prefixes = 0;
  beforeAll(async () => {
    redisCluster = await startRedisCluster();
  }, 60_000);
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.quit().catch(() => client.disconnect())));
  });
  afterAll(async () => {
    await redisCluster?.stop();
  });
  const connect = () => {
    const client = new Cluster(redisCluster.nodes);
    clients.push(client);
    return client as unknown as Redis;
  };

  signInStoreContract(redisHarness(connect, (client) => (client as unknown as Cluster).nodes('master'), () => `c${++prefixes}:`));

  it('puts a grant and its early revocation in one slot, and spreads grants over the masters', async () => {
    const client = connect() as unknown as Cluster;
    const store = new RedisSignInStore(client, { keyPrefix: 'spread:' });
    const slot = (key: string) => client.cluster('KEYSLOT', key) as Promise<number>;
    const ids = Array.from({ length: 12 }, (_, i) => `grant-${i}`);
    for (const id of ids) {
      expect(await slot(`spread:signin:grant:{${id}}`)).toBe(await slot(`spread:signin:grant:{${id}}:revoked-early`));
      await store.grants.revoke(id);
      await store.grants.add(grantOf(id), 60);
      expect((await store.grants.get(id))?.revoked).toBe(true);
    }
    const owners = await Promise.all(client.nodes('master').map(async (node) => (await scanAll(node, 'spread:signin:grant:*')).length));
    expect(owners.filter((count) => count > 0).length).toBeGreaterThan(1);
  });
});
