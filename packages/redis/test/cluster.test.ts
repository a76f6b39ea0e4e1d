/**
 * @typemcp/redis on a real Redis Cluster of three masters (redis-server --cluster-enabled yes,
 * joined by redis-cli --cluster create): every store over an ioredis Cluster, with keys spread
 * over the slots (the task scripts' keys in one, by their hash tag), and two replicas given
 * `{ cluster: [...] }` serving one session between them.
 */
import 'reflect-metadata';
import { IsString } from 'class-validator';
import { Cluster } from 'ioredis';
import type { Redis } from 'ioredis';
import { McpServer, Tool } from '@typemcp/core';
import type { ClusterMessage, JsonRpcMessage, TaskRecord } from '@typemcp/core';
import { redis, RedisBroadcaster, RedisEventStore, RedisSessionStore, RedisTaskStore } from '@typemcp/redis';
import { startRedisCluster } from '../../../test-support/redisCluster';
import type { RedisCluster } from '../../../test-support/redisCluster';

let redisCluster: RedisCluster;
let clients: Cluster[] = [];

beforeAll(async () => {
  redisCluster = await startRedisCluster();
}, 60_000);
afterAll(async () => {
  await redisCluster?.stop();
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.quit().catch(() => client.disconnect())));
});

function cluster(): Redis {
  const client = new Cluster(redisCluster.nodes);
  clients.push(client);
  return client as unknown as Redis;
}

it('spreads sessions and events over the masters, and keeps each working', async () => {
  const client = cluster();
  const sessions = new RedisSessionStore(client, { keyPrefix: 'c1:' });
  const ids = Array.from({ length: 12 }, (_, i) => `session-${i}`);
  for (const id of ids) expect(await sessions.replace({ id, state: 'ready', protocolVersion: '2025-11-25', clientCapabilities: {}, subscriptions: [], version: 1 }, 60_000, undefined)).toBe(true);
  for (const id of ids) expect(await sessions.get(id)).toMatchObject({ id, version: 1 });
  // The keys live on more than one master.
  const slots = new Set(await Promise.all(ids.map((id) => (client as unknown as Cluster).cluster('KEYSLOT', `c1:session:${id}`) as Promise<number>)));
  expect(slots.size).toBeGreaterThan(1);

  const events = new RedisEventStore(client, { keyPrefix: 'c1:' });
  const first = await events.store('stream-a', { jsonrpc: '2.0', method: 'a/1' });
  await events.store('stream-b', { jsonrpc: '2.0', method: 'b/1' });
  await events.store('stream-a', { jsonrpc: '2.0', method: 'a/2' });
  const replayed: JsonRpcMessage[] = [];
  expect(await events.replayAfter(first, (_id, message) => replayed.push(message))).toBe('stream-a');
  expect(replayed).toEqual([{ jsonrpc: '2.0', method: 'a/2' }]);
});

it('runs the task scripts, whose keys share one slot', async () => {
  const tasks = new RedisTaskStore(cluster(), { keyPrefix: 'c2:' });
  const now = new Date().toISOString();
  const record: TaskRecord = {
    taskId: 't1',
    status: 'working',
    createdAt: now,
    lastUpdatedAt: now,
    ttlMs: 60_000,
    pollIntervalMs: 500,
    owner: 'alice',
    request: { method: 'tools/call', params: { name: 'slow', arguments: {} } },
    rerunnable: true,
    runner: 'r1',
    leaseUntil: Date.now() - 1,
  };
  expect(await tasks.create(record, 5)).toBe(true);
  expect((await tasks.list('alice', undefined, 10)).tasks.map((t) => t.taskId)).toEqual(['t1']);
  expect((await tasks.claimExpired('r2', Date.now(), Date.now() + 60_000)).map((t) => t.runner)).toEqual(['r2']);
});

it('publishes and subscribes between two broadcasters on the cluster', async () => {
  const a = new RedisBroadcaster(cluster(), { keyPrefix: 'c3:' });
  const b = new RedisBroadcaster(cluster(), { keyPrefix: 'c3:' });
  try {
    const heard = new Promise<ClusterMessage>((resolve) => void b.subscribe('topic', resolve));
    await new Promise((resolve) => setTimeout(resolve, 200));
    await a.publish('topic', { hello: 'cluster' });
    expect(await heard).toEqual({ hello: 'cluster' });
  } finally {
    await a.close();
    await b.close();
  }
});

class TextInput {
  @IsString() text!: string;
}

class Tools {
  @Tool({ description: 'Echo' })
  echo(input: TextInput): string {
    return `echo ${input.text}`;
  }
}

it('serves one handshake-era session from two replicas given { cluster: [...] }', async () => {
  const servers: McpServer[] = [];
  try {
    const urls: string[] = [];
    for (const replicaId of ['a', 'b']) {
      const server = new McpServer({ name: 'clustered', version: '1', providers: [Tools], requestState: { secret: 'redis-cluster-test-secret-0123' } });
      server.plugin(redis, { cluster: redisCluster.nodes, keyPrefix: 'c4:', replicaId });
      servers.push(server);
      urls.push((await server.listen({ transport: 'http', port: 0, handleSignals: false, readinessPath: '/ready' })).url);
    }
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const opened = await fetch(urls[0], {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } }),
    });
    await opened.text();
    const session = opened.headers.get('mcp-session-id')!;
    const inSession = { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
    await (await fetch(urls[0], { method: 'POST', headers: inSession, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })).text();
    const called = await fetch(urls[1], { method: 'POST', headers: inSession, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'across' } } }) });
    expect(called.status).toBe(200);
    expect(await called.text()).toContain('echo across');
    expect(await (await fetch(new URL('/ready', urls[1]))).json()).toEqual({ ready: true, checks: { redis: true } });
  } finally {
    await Promise.all(servers.map((server) => server.close()));
  }
}, 30_000);
