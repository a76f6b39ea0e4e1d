/**
 * RedisRateLimitStore and RedisResultCache on a real Redis Cluster of three masters: the
 * guards' store contracts over an ioredis Cluster (two connections as two replicas), the
 * callers and groups spread over the slots while each script's keys share one.
 */
import { Cluster } from 'ioredis';
import type { Redis } from 'ioredis';
import { RedisRateLimitStore, RedisResultCache } from '@typemcp/redis';
import { describeRateLimitStore, describeResultCacheStore } from '../../../test-support/guardStoreContracts';
import { startRedisCluster } from '../../../test-support/redisCluster';
import type { RedisCluster } from '../../../test-support/redisCluster';

let redisCluster: RedisCluster;
const clients: Cluster[] = [];

beforeAll(async () => {
  redisCluster = await startRedisCluster();
}, 60_000);
afterAll(async () => {
  await redisCluster?.stop();
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.quit().catch(() => client.disconnect())));
});

function cluster(): Cluster {
  const client = new Cluster(redisCluster.nodes);
  clients.push(client);
  return client;
}

describeRateLimitStore('RedisRateLimitStore on a Redis Cluster', () => new RedisRateLimitStore(cluster(), { keyPrefix: 'gc:' }), { shared: true });
describeResultCacheStore('RedisResultCache on a Redis Cluster', () => new RedisResultCache(cluster(), { keyPrefix: 'gc:' }), { shared: true });

it('spreads callers and groups over the masters, a group and its entries in one slot', async () => {
  const client = cluster();
  const limits = new RedisRateLimitStore(client, { keyPrefix: 'gs:' });
  const cache = new RedisResultCache(client, { keyPrefix: 'gs:' });
  const callers = Array.from({ length: 12 }, (_, i) => `principal:user-${i}`);
  for (const caller of callers) expect((await limits.take(caller, { limit: 1, windowMs: 10_000, algorithm: 'sliding-window' })).allowed).toBe(true);
  const groups = Array.from({ length: 12 }, (_, i) => `tool:t${i}`);
  for (const group of groups) await cache.set(group, 'k', group, 10_000);
  for (const group of groups) expect((await cache.get(group, 'k'))?.value).toBe(group);

  const slot = (key: string) => client.cluster('KEYSLOT', key) as Promise<number>;
  const callerSlots = new Set(await Promise.all(callers.map((caller) => slot(`gs:ratelimit:{${caller}}:sliding-window:1:10000`))));
  expect(callerSlots.size).toBeGreaterThan(1);
  const masters = client.nodes('master') as unknown as Redis[];
  const held = await Promise.all(masters.map(async (node) => (await node.keys('gs:cache:*')).length));
  expect(held.filter((n) => n > 0).length).toBeGreaterThan(1);
  for (const group of groups) expect(await slot(`gs:cache:{${group}}:0:k`)).toBe(await slot(`gs:cache:{${group}}:gen`));
});
