import 'reflect-metadata';
import net from 'node:net';
import { IsString } from 'class-validator';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { Context, DefinitionError, McpServer, Tool } from '@typemcp/core';
import { redis, RedisBroadcaster, RedisEventStore, RedisSessionStore, RedisTaskStore } from '@typemcp/redis';
import type { RedisPluginOptions } from '@typemcp/redis';
import type { Redis } from 'ioredis';
import { useRedis } from './redisTestSupport';
import { roundRobinFetch } from '../../../test-support/roundRobinFetch';

const redisServer = useRedis();
const SECRET = 'redis-plugin-test-secret-0123456789';

class TextInput {
  @IsString() text!: string;
}

class Tools {
  constructor(private readonly replica = '') {}

  @Tool({ description: 'Echo' })
  echo(input: TextInput): string {
    return `echo ${input.text}`;
  }

  @Tool({ description: 'Asks the client model' })
  async ask(input: TextInput, ctx: Context): Promise<string> {
    const answer = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: input.text } }], maxTokens: 10 });
    const block = Array.isArray(answer.content) ? answer.content[0] : answer.content;
    return block.type === 'text' ? `model said: ${block.text}` : 'no text';
  }
}

interface Replica {
  name: string;
  server: McpServer;
  url: URL;
  errors: Array<[string, unknown]>;
}

const servers: McpServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

function server(options: { onError?: (what: string, error: unknown) => void; secret?: boolean } = {}): McpServer {
  const created = new McpServer({
    name: 'redis-cluster',
    version: '1',
    providers: [Tools],
    ...(options.secret === false ? {} : { requestState: { secret: SECRET } }),
    onError: options.onError,
  });
  servers.push(created);
  return created;
}

async function replicas(count: number, options: Partial<RedisPluginOptions> = {}): Promise<Replica[]> {
  const keyPrefix = redisServer.prefix();
  const started: Replica[] = [];
  for (let i = 0; i < count; i++) {
    const errors: Array<[string, unknown]> = [];
    const replica = server({ onError: (what, error) => errors.push([what, error]) }).plugin(redis, { url: redisServer.url, keyPrefix, replicaId: `r${i}`, ...options });
    const address = await replica.listen({ transport: 'http', port: 0, host: '127.0.0.1', handleSignals: false });
    started.push({ name: `r${i}`, server: replica, url: new URL(address.url), errors });
  }
  return started;
}

async function clientOf(targets: Replica[], log: string[]): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(targets[0].url, {
    fetch: roundRobinFetch(targets, log),
    reconnectionOptions: { initialReconnectionDelay: 20, maxReconnectionDelay: 100, reconnectionDelayGrowFactor: 1.5, maxRetries: 5 },
  });
  const client = new Client({ name: 'redis-client', version: '1' }, { capabilities: { sampling: {} } });
  await client.connect(transport);
  return client;
}

const textOf = (result: object) => (result as { content: Array<{ text: string }> }).content[0].text;

async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The connections Redis has open now, less the probe asking. */
async function connectionCount(probe: Redis): Promise<number> {
  const list = (await probe.client('LIST')) as string;
  return list.trim().split('\n').length - 1;
}

it('registers the Redis stores as the cluster of each server sharing one Redis', async () => {
  const [a, b] = await replicas(2);
  for (const [replica, name] of [[a, 'r0'], [b, 'r1']] as const) {
    const cluster = replica.server.runtime.cluster!;
    expect(cluster.replicaId).toBe(name);
    expect(cluster.options.sessions).toBeInstanceOf(RedisSessionStore);
    expect(cluster.options.events).toBeInstanceOf(RedisEventStore);
    expect(cluster.options.broadcaster).toBeInstanceOf(RedisBroadcaster);
    expect(cluster.options.tasks).toBeInstanceOf(RedisTaskStore);
  }
  expect(a.server.runtime.cluster!.options.sessions).not.toBe(b.server.runtime.cluster!.options.sessions);
});

it('serves one session from two replicas behind a round-robin balancer: calls, list changes and sampling cross replicas', async () => {
  const targets = await replicas(2);
  const log: string[] = [];
  const client = await clientOf(targets, log);
  client.setRequestHandler(CreateMessageRequestSchema, async () => ({ role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'm' }));
  let listChanged = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void listChanged++);

  expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'one' } }))).toBe('echo one');
  expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'two' } }))).toBe('echo two');
  expect(new Set(log.filter((line) => line.startsWith('POST')).map((line) => line.split(' ')[1]))).toEqual(new Set(['r0', 'r1']));

  // A change on either replica reaches the client, whichever replica holds its stream.
  await until(() => log.some((line) => line.startsWith('GET')), 'the session stream');
  targets[0].server.tools.disable('echo');
  await until(() => listChanged >= 1, 'list_changed from r0');
  targets[0].server.tools.enable('echo');
  targets[1].server.tools.disable('echo');
  targets[1].server.tools.enable('echo');
  await until(() => listChanged >= 2, 'list_changed from r1');

  // The model is asked through whichever replica holds the stream; the answer goes back to the asking replica.
  expect(textOf(await client.callTool({ name: 'ask', arguments: { text: 'q1' } }))).toBe('model said: hi');
  expect(textOf(await client.callTool({ name: 'ask', arguments: { text: 'q2' } }))).toBe('model said: hi');
  await client.close();
  for (const replica of targets) expect(replica.errors).toEqual([]);
});

it('quits the connections it opened when the server closes; jest sees no open handle', async () => {
  const probe = redisServer.client();
  const before = await connectionCount(probe);
  const [replica] = await replicas(1);
  const log: string[] = [];
  const client = await clientOf([replica], log);
  await client.callTool({ name: 'echo', arguments: { text: 'x' } });
  await client.close();
  expect(await connectionCount(probe)).toBe(before + 2); // the client and its subscriber duplicate
  await replica.server.close();
  await until(async () => (await connectionCount(probe)) === before, 'the plugin connections to close');
});

it('leaves a given client open, and quits the subscriber duplicate it made of it', async () => {
  const client = redisServer.client();
  const keyPrefix = redisServer.prefix();
  const replica = server().plugin(redis, { client, keyPrefix });
  await replica.listen({ transport: 'http', port: 0, host: '127.0.0.1', handleSignals: false });
  const broadcaster = replica.runtime.cluster!.options.broadcaster as RedisBroadcaster;
  await until(() => broadcaster.subscriberConnection.status === 'ready', 'the subscriber connection');
  await replica.close();
  expect(broadcaster.subscriberConnection.status).toBe('end');
  expect(client.status).toBe('ready');
  expect(await client.ping()).toBe('PONG');
});

it('reports connection errors through the server and never crashes; requests fail with an internal error; close still ends', async () => {
  const port = await new Promise<number>((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
  const errors: Array<[string, unknown]> = [];
  const replica = server({ onError: (what, error) => errors.push([what, error]) }).plugin(redis, {
    url: `redis://127.0.0.1:${port}`,
    // ioredis keeps a disconnected socket's 2 s destroy timer even when the socket is long gone: short here, so jest exits at once.
    redisOptions: { retryStrategy: () => 50, maxRetriesPerRequest: 1, disconnectTimeout: 50 },
  });
  const address = await replica.listen({ transport: 'http', port: 0, host: '127.0.0.1', handleSignals: false });
  const answer = await fetch(address.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', connection: 'close' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } }),
  });
  expect(answer.status).toBe(500);
  expect(await answer.json()).toMatchObject({ error: { code: -32603 } });
  await until(() => errors.some(([what]) => what.includes('the Redis subscriber connection failed')), 'a reported connection error');
  await new Promise((resolve) => setTimeout(resolve, 300));
  // One report per outage, not one per retry.
  const reports = errors.filter(([what]) => what.includes('the Redis subscriber connection failed (it retries)'));
  expect(reports).toHaveLength(1);
  expect((reports[0][1] as Error).message).toMatch(/ECONNREFUSED/);
  await replica.close();
});

it('opens no connection when the server refuses the plugin', async () => {
  const probe = redisServer.client();
  const before = await connectionCount(probe);
  expect(() => server({ secret: false }).plugin(redis, { url: redisServer.url })).toThrow(/requestState.secret/);
  const twice = server().plugin(redis, { url: redisServer.url, keyPrefix: redisServer.prefix() });
  expect(() => twice.plugin(redis, { url: redisServer.url })).toThrow(DefinitionError);
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(await connectionCount(probe)).toBe(before);
});

describe('option errors name the fix', () => {
  const cases: Array<[string, unknown, RegExp]> = [
    ['no options', undefined, /options are required: server.plugin\(redis, \{ url: 'redis:\/\/127.0.0.1:6379' \}\)/],
    ['neither url nor client', {}, /give url \(e.g. 'redis:\/\/127.0.0.1:6379'\), cluster \(the nodes of a Redis Cluster\) or client \(an ioredis Redis or Cluster\)/],
    ['both', { url: 'redis://localhost', client: {} }, /give one of url, cluster and client/],
    ['an empty cluster', { cluster: [] }, /cluster must be a non-empty list of nodes such as \[\{ host: '10.0.0.1', port: 6379 \}\] or \['redis:\/\/10.0.0.1:6379'\]/],
    ['a cluster node without a port', { cluster: [{ host: '10.0.0.1' }] }, /cluster must be a non-empty list of nodes/],
    ['a url of another scheme', { url: 'http://localhost:6379' }, /url must be a redis:\/\/ or rediss:\/\/ URL such as 'redis:\/\/127.0.0.1:6379', not "http:\/\/localhost:6379"/],
    ['a url that is not one', { url: 'localhost:6379' }, /url must be a redis:\/\//],
    ['a client that is not ioredis', { client: { get() {} } }, /client must be an ioredis connection/],
    ['redisOptions with a client', { client: 'later', redisOptions: {} }, /redisOptions apply to the connection opened from url/],
    ['an empty keyPrefix', { url: 'redis://localhost', keyPrefix: '' }, /keyPrefix must be a non-empty string such as 'myserver:', not ""/],
    ['a bad replicaId', { url: 'redis://localhost', replicaId: 'a b' }, /replicaId must be 1 to 64 letters, digits, "_" or "-", not "a b"/],
    ['a bad maxEventsPerStream', { url: 'redis://localhost', maxEventsPerStream: 0 }, /maxEventsPerStream must be a positive integer, not 0/],
    ['a bad eventStreamTtlMs', { url: 'redis://localhost', eventStreamTtlMs: 'long' }, /eventStreamTtlMs must be a positive integer, not "long"/],
  ];
  it.each(cases)('%s', (_, options, message) => {
    const resolved = options && (options as { client?: unknown }).client === 'later' ? { ...(options as object), client: redisServer.client() } : options;
    let error: unknown;
    try {
      server().plugin(redis, resolved as RedisPluginOptions);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(DefinitionError);
    expect((error as DefinitionError).code).toBe('INVALID_OPTION');
    expect((error as Error).message).toMatch(/^@typemcp\/redis: /);
    expect((error as Error).message).toMatch(message);
  });
});
