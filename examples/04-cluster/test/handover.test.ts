/**
 * A session's stream handed over between replica processes while posts go on: three replicas
 * of the board over a real redis-server (and over a real three-master Redis Cluster), no proxy.
 * The client picks a replica per request, drops its stream at random moments and resumes it
 * with Last-Event-ID on another replica. Every post announces its own channel, to which the
 * session subscribed: each update must reach the client exactly once, in the order the stream
 * recorded them.
 *
 * HANDOVER_ROUNDS (default 3) rounds per Redis; `npm run soak:handover` runs 20.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { Cluster, Redis } from 'ioredis';
import { startRedis } from '../../../test-support/redisServer';
import type { RedisServer } from '../../../test-support/redisServer';
import { startRedisCluster } from '../../../test-support/redisCluster';
import type { RedisCluster } from '../../../test-support/redisCluster';
import { runTsPath } from '../../../test-support/spawnServer';
import { spawnReplica } from '../src/processes';
import type { ReplicaProcess } from '../src/processes';

const ROUNDS = Number(process.env.HANDOVER_ROUNDS ?? 3);
/** Posts per round, each on its own channel. */
const POSTS = 40;
jest.setTimeout(60_000 + ROUNDS * 20_000);

const SECRET = randomBytes(24).toString('base64url');
const KEY_PREFIX = 'board-example:';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const pick = <T>(items: readonly T[], not?: T): T => {
  const choices = items.filter((item) => item !== not);
  return choices[Math.floor(Math.random() * choices.length)];
};

async function startReplicas(where: { redisUrl: string } | { redisCluster: string[] }): Promise<ReplicaProcess[]> {
  return Promise.all(
    ['replica-1', 'replica-2', 'replica-3'].map((replicaId) =>
      spawnReplica({ replicaId, ...where, requestStateSecret: SECRET, script: path.join(__dirname, '../src/replica.ts'), nodeArgs: ['-r', runTsPath], timeoutMs: 60_000 }),
    ),
  );
}

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

async function post(replica: ReplicaProcess, headers: Record<string, string>, message: Record<string, unknown>): Promise<void> {
  const response = await fetch(replica.url, { method: 'POST', headers, body: JSON.stringify(message) });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${replica.replicaId} answered ${response.status}: ${text}`);
  if (text.includes('"error"')) throw new Error(`${replica.replicaId} answered an error: ${text}`);
}

/** The session's stream as its client reads it, from one replica and then the next. */
class Reader {
  /** The channel of every update received, with its event id. */
  readonly received: Array<{ id: string; channel: string }> = [];
  private controller: AbortController | undefined;
  private reading: Promise<void> | undefined;

  constructor(private readonly headers: Record<string, string>) {}

  get lastId(): string | undefined {
    return this.received[this.received.length - 1]?.id;
  }

  async open(replica: ReplicaProcess): Promise<void> {
    const controller = new AbortController();
    const lastId = this.lastId;
    const response = await fetch(replica.url, {
      headers: { ...this.headers, accept: 'text/event-stream', ...(lastId === undefined ? {} : { 'last-event-id': lastId }) },
      signal: controller.signal,
    });
    if (response.status !== 200) throw new Error(`GET on ${replica.replicaId} after ${String(lastId)}: ${response.status} ${await response.text()}`);
    this.controller = controller;
    this.reading = this.read(response.body!.getReader());
  }

  /** Drops the connection as a client does when its network goes; events may be on their way. */
  async drop(): Promise<void> {
    this.controller?.abort();
    await this.reading;
  }

  private async read(body: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for (;;) {
        const { value, done } = await body.read();
        if (done) return;
        buffer += decoder.decode(value, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const id = /^id: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (id === undefined || data === undefined) continue;
          const uri = (JSON.parse(data) as { params?: { uri?: string } }).params?.uri ?? '';
          this.received.push({ id, channel: uri.slice('board://channels/'.length) });
        }
      }
    } catch {
      // dropped on purpose: a partial event is read again after the resume
    }
  }
}

/** One round: a session, a stream handed over at random while POSTS posts go on; returns the hand-overs made. */
async function round(replicas: ReplicaProcess[], redis: Redis | Cluster, name: string): Promise<number> {
  const init = await fetch(pick(replicas).url, {
    method: 'POST',
    headers: JSON_HEADERS,
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'handover', version: '1' } } }),
  });
  await init.text();
  const headers = { ...JSON_HEADERS, 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' };
  await post(pick(replicas), headers, { jsonrpc: '2.0', method: 'notifications/initialized' });
  const channels = Array.from({ length: POSTS }, (_, n) => `${name}-${n}`);
  let nextId = 1;
  for (const channel of channels) {
    await post(pick(replicas), headers, { jsonrpc: '2.0', id: nextId++, method: 'resources/subscribe', params: { uri: `board://channels/${channel}` } });
  }

  const reader = new Reader(headers);
  let holder = pick(replicas);
  await reader.open(holder);
  // The first update gives the client an event to resume from.
  await post(pick(replicas), headers, { jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name: 'post_message', arguments: { text: 'first', channel: channels[0] } } });
  for (let waited = 0; reader.received.length === 0 && waited < 5000; waited += 5) await sleep(5);

  let posting = true;
  const posts = (async () => {
    for (const channel of channels.slice(1)) {
      await post(pick(replicas), headers, { jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name: 'post_message', arguments: { text: 'hello', channel } } });
      await sleep(Math.random() * 15);
    }
    posting = false;
  })();
  let handovers = 0;
  while (posting) {
    await sleep(20 + Math.random() * 80);
    await reader.drop();
    // Sometimes the client comes back at once, sometimes after posts went on without it.
    if (Math.random() < 0.5) await sleep(Math.random() * 40);
    holder = pick(replicas, holder);
    await reader.open(holder);
    handovers++;
  }
  await posts;
  for (let waited = 0; reader.received.length < POSTS && waited < 5000; waited += 10) await sleep(10);
  await sleep(100); // anything doubled arrives too
  await reader.drop();

  const got = reader.received.map((event) => event.channel);
  const missing = channels.filter((channel) => !got.includes(channel));
  const doubled = got.filter((channel, index) => got.indexOf(channel) !== index);
  expect({ round: name, missing, doubled }).toEqual({ round: name, missing: [], doubled: [] });
  // The stream recorded each update once, in the order the client got them.
  const firstId = reader.received[0].id;
  const streamId = firstId.slice(0, firstId.lastIndexOf(':'));
  const entries = await redis.xrange(`${KEY_PREFIX}events:{${streamId}}`, '-', '+');
  const recorded = entries.map(([, fields]) => (JSON.parse(fields[1]) as { params: { uri: string } }).params.uri.slice('board://channels/'.length));
  expect(recorded).toEqual(got);
  const ids = reader.received.map((event) => event.id);
  expect(ids).toEqual(entries.map(([entryId]) => `${streamId}:${entryId}`));
  await fetch(pick(replicas).url, { method: 'DELETE', headers });
  return handovers;
}

describe('the board: the session stream handed over between replicas while posts go on', () => {
  let redis: RedisServer;
  let replicas: ReplicaProcess[] = [];
  let client: Redis;

  beforeAll(async () => {
    redis = await startRedis();
    client = new Redis(redis.url);
    replicas = await startReplicas({ redisUrl: redis.url });
  }, 90_000);

  afterAll(async () => {
    client?.disconnect();
    await Promise.all(replicas.map((replica) => replica.stop()));
    await redis?.stop();
  });

  it(`loses and doubles nothing in ${ROUNDS} rounds over one redis-server`, async () => {
    let handovers = 0;
    for (let n = 0; n < ROUNDS; n++) handovers += await round(replicas, client, `r${n}`);
    expect(handovers).toBeGreaterThanOrEqual(ROUNDS);
  });
});

describe('the board on a Redis Cluster of three masters', () => {
  let redisCluster: RedisCluster;
  let replicas: ReplicaProcess[] = [];
  let client: Cluster;

  beforeAll(async () => {
    redisCluster = await startRedisCluster();
    const nodes = redisCluster.nodes.map((node) => `redis://${node.host}:${node.port}`);
    client = new Cluster(redisCluster.nodes);
    replicas = await startReplicas({ redisCluster: nodes });
  }, 90_000);

  afterAll(async () => {
    client?.disconnect();
    await Promise.all(replicas.map((replica) => replica.stop()));
    await redisCluster?.stop();
  });

  it('serves one session from all three replicas and hands its stream over without loss', async () => {
    const handovers = await round(replicas, client, 'cluster');
    expect(handovers).toBeGreaterThanOrEqual(1);
    // The board itself lives on the cluster too: every post is there.
    const response = await fetch(replicas[0].url, {
      method: 'POST',
      headers: { ...JSON_HEADERS, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'read_messages' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'read_messages',
          arguments: { limit: 1, channel: 'cluster-39' },
          _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} },
        },
      }),
    });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('cluster-39');
  });
});
