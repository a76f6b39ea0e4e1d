/**
 * The board cluster for real: a redis-server, three replica processes (the TypeScript sources,
 * through test-support/runTs.js) and the round-robin proxy, all on 127.0.0.1 and free ports.
 * Official SDK clients (2025-11-25 sessions) and raw 2026-07-28 requests go through the proxy,
 * which has no stickiness; then one replica is killed (SIGKILL) under load.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { RecordingTransport } from '../../../test-support/recordingTransport';
import { startRedis } from '../../../test-support/redisServer';
import type { RedisServer } from '../../../test-support/redisServer';
import { runTsPath } from '../../../test-support/spawnServer';
import { expectValidServerMessages } from '../../../test-support/specSchema';
import { spawnReplica } from '../src/processes';
import type { ReplicaProcess } from '../src/processes';
import { startProxy, UPSTREAM_HEADER } from '../src/proxy';
import type { Proxy } from '../src/proxy';

jest.setTimeout(120_000);

type Message = Record<string, any>;

const SECRET = randomBytes(24).toString('base64url');
/** Short task leases, so a replica's loss is noticed within a second. */
const TASK_ENV = { TASK_LEASE_MS: '600', TASK_RENEW_MS: '100', TASK_POLL_MS: '100' };
const FANOUT_URI = 'board://channels/fanout';

let redis: RedisServer;
let replicas: ReplicaProcess[] = [];
const replicaLogs = new Map<string, string>();
let proxy: Proxy;
const sdkClients: SdkClient[] = [];
const listeners: Listener[] = [];
/** Every message a 2026-07-28 request got, for the schema check. */
const modernReceived: Array<{ message: Message; requestMethod?: string }> = [];

beforeAll(async () => {
  // Fails (never skips) with how to install it when redis-server is missing.
  redis = await startRedis();
  replicas = await Promise.all(
    ['replica-1', 'replica-2', 'replica-3'].map(async (replicaId) => {
      const replica = await spawnReplica({
        replicaId,
        redisUrl: redis.url,
        requestStateSecret: SECRET,
        env: TASK_ENV,
        script: path.join(__dirname, '../src/replica.ts'),
        nodeArgs: ['-r', runTsPath],
        stderr: 'pipe',
        timeoutMs: 60_000,
      });
      replicaLogs.set(replicaId, '');
      replica.child.stderr!.setEncoding('utf8').on('data', (chunk: string) => replicaLogs.set(replicaId, (replicaLogs.get(replicaId)! + chunk).slice(-4000)));
      return replica;
    }),
  );
  proxy = await startProxy({ targets: replicas.map((r) => `http://127.0.0.1:${r.port}`), downForMs: 1000 });
}, 90_000);

afterAll(async () => {
  for (const listener of listeners) listener.close();
  await Promise.all(sdkClients.map((c) => c.client.close().catch(() => undefined)));
  await proxy?.close();
  await Promise.all(replicas.map((r) => r.stop()));
  await redis?.stop();
});

const replicaOfUpstream = (upstream: string | null | undefined) => replicas.find((r) => `127.0.0.1:${r.port}` === upstream)?.replicaId;
const textOf = (result: unknown) => (result as { content: Array<{ text: string }> }).content[0].text;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
async function until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

// ---- 2026-07-28: raw requests ----------------------------------------------------------

const meta = (capabilities: Record<string, unknown> = {}) => ({
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': capabilities,
  'io.modelcontextprotocol/clientInfo': { name: 'raw-2026', version: '1.0.0' },
});

/** Reads a JSON or SSE answer: its JSON-RPC messages. */
async function messagesOf(response: Response): Promise<Message[]> {
  const type = response.headers.get('content-type') ?? '';
  if (type.includes('application/json')) return [(await response.json()) as Message];
  if (!type.includes('text/event-stream')) return [];
  return (await response.text())
    .split('\n\n')
    .map((event) => event.split('\n').find((line) => line.startsWith('data: ')))
    .filter((line): line is string => line !== undefined)
    .map((line) => JSON.parse(line.slice(6)) as Message);
}

let nextId = 1;
const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } };

/**
 * One 2026-07-28 request with its mirrored headers; resolves with the answer and the replica
 * that gave it. Answers are kept for the schema check, but for the tasks extension's (the
 * 2026-07-28 schema has no task types; the core's task tests check their shapes).
 */
async function modern(url: string, method: string, params: Message, capabilities: Record<string, unknown> = {}) {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': method,
  };
  // The header a balancer routes by: the tool or prompt name, the resource uri, the task id.
  const name = method === 'resources/read' ? params.uri : method.startsWith('tasks/') ? params.taskId : params.name;
  if (['tools/call', 'prompts/get', 'resources/read', 'tasks/get', 'tasks/update', 'tasks/cancel'].includes(method)) headers['mcp-name'] = name;
  const body = { jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: meta(capabilities) } };
  const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
  const messages = await messagesOf(response);
  if (capabilities !== TASKS) for (const message of messages) modernReceived.push({ message, requestMethod: 'method' in message ? undefined : method });
  const answer = messages.find((m) => m.id === body.id);
  if (response.status !== 200 || !answer) throw new Error(`${method}: HTTP ${response.status} ${JSON.stringify(messages)}`);
  if (answer.error) throw new Error(`${method}: ${JSON.stringify(answer.error)}`);
  return { result: answer.result as Message, upstream: response.headers.get(UPSTREAM_HEADER) };
}

// ---- 2025-11-25: official SDK clients ---------------------------------------------------

interface SdkClient {
  name: string;
  client: Client;
  recorder: RecordingTransport;
  /** Each HTTP exchange: what was sent (a method, `answer` for a response, GET, DELETE), the status and the replica. */
  trace: Array<{ kind: string; status: number; replica: string | undefined }>;
  updates: Map<string, number>;
}

async function sdkClient(name: string): Promise<SdkClient> {
  const trace: SdkClient['trace'] = [];
  const tracingFetch = async (input: string | URL, init?: RequestInit) => {
    const response = await fetch(input, init);
    let kind = init?.method ?? 'GET';
    if (typeof init?.body === 'string') {
      const sent = JSON.parse(init.body) as Message;
      kind = typeof sent.method === 'string' ? sent.method : 'answer';
    }
    trace.push({ kind, status: response.status, replica: replicaOfUpstream(response.headers.get(UPSTREAM_HEADER)) });
    return response;
  };
  const transport = new StreamableHTTPClientTransport(new URL(proxy.url), {
    fetch: tracingFetch,
    reconnectionOptions: { initialReconnectionDelay: 50, maxReconnectionDelay: 500, reconnectionDelayGrowFactor: 1.5, maxRetries: 50 },
  });
  const recorder = new RecordingTransport(transport);
  const client = new Client({ name, version: '1.0.0' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { name } }));
  const updates = new Map<string, number>();
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.set(n.params.uri, (updates.get(n.params.uri) ?? 0) + 1));
  await client.connect(recorder);
  const connected = { name, client, recorder, trace, updates };
  sdkClients.push(connected);
  return connected;
}

/** The replica holding a client's session GET stream now: the last GET that was answered 200. */
const streamReplica = (c: SdkClient) => [...c.trace].reverse().find((t) => t.kind === 'GET' && t.status === 200)?.replica;

function expectValidSdkConversations(): void {
  for (const { recorder } of sdkClients) expectValidServerMessages('2025-11-25', recorder.received);
  expectValidServerMessages('2026-07-28', modernReceived);
}

// ---- 2026-07-28 subscriptions/listen streams ----------------------------------------

interface Listener {
  replica: string | undefined;
  updates: number;
  ended: boolean;
  close(): void;
}

async function listen(): Promise<Listener> {
  const controller = new AbortController();
  const id = `listen-${nextId++}`;
  const response = await fetch(proxy.url, {
    method: 'POST',
    signal: controller.signal,
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'subscriptions/listen' },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'subscriptions/listen', params: { _meta: meta(), notifications: { resourceSubscriptions: [FANOUT_URI] } } }),
  });
  if (response.status !== 200) throw new Error(`listen: HTTP ${response.status} ${await response.text()}`);
  const listener: Listener = { replica: replicaOfUpstream(response.headers.get(UPSTREAM_HEADER)), updates: 0, ended: false, close: () => controller.abort() };
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  let acknowledged!: () => void;
  const ack = new Promise<void>((resolve) => (acknowledged = resolve));
  void (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffered += decoder.decode(value, { stream: true });
        let end: number;
        while ((end = buffered.indexOf('\n\n')) !== -1) {
          const frame = buffered.slice(0, end);
          buffered = buffered.slice(end + 2);
          const data = frame.split('\n').find((line) => line.startsWith('data: '));
          if (!data) continue;
          const message = JSON.parse(data.slice(6)) as Message;
          modernReceived.push({ message });
          if (message.method === 'notifications/subscriptions/acknowledged') acknowledged();
          if (message.method === 'notifications/resources/updated' && message.params?.uri === FANOUT_URI) listener.updates++;
        }
      }
    } catch {
      // aborted, or its replica went away
    } finally {
      listener.ended = true;
    }
  })();
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([ack, new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('listen: no acknowledgement within 10 s')), 10_000)))]).finally(() => clearTimeout(timer));
  listeners.push(listener);
  return listener;
}

// ---- the load -------------------------------------------------------------------------

interface LoadReport {
  done: number;
  errors: string[];
  /** REPLICA_IDs answered by whoami. */
  whoami: Set<string>;
  /** MRTR rounds whose retry another replica served than the first round. */
  mrtrElsewhere: number;
  /** SDK elicitations answered through another replica than the one that asked. */
  elicitationsElsewhere: number;
}

/**
 * `total` operations from `workers` concurrent loops, mixed: SDK calls of every kind on the
 * given clients, and raw 2026-07-28 requests with MRTR rounds. `onProgress` sees each count.
 */
async function runLoad(clients: SdkClient[], total: number, workers: number, onProgress: (done: number) => void = () => undefined): Promise<LoadReport> {
  const report: LoadReport = { done: 0, errors: [], whoami: new Set(), mrtrElsewhere: 0, elicitationsElsewhere: 0 };
  const check = (ok: boolean, what: string) => {
    if (!ok) throw new Error(`unexpected answer: ${what}`);
  };
  const operations: Array<(i: number) => Promise<void>> = [
    async (i) => void report.whoami.add(textOf(await clients[i % clients.length].client.callTool({ name: 'whoami' }))),
    async (i) => check(/^Posted #\d+/.test(textOf(await clients[i % clients.length].client.callTool({ name: 'post_message', arguments: { text: `load ${i}` } }))), 'post_message'),
    async (i) => check((await clients[i % clients.length].client.listTools()).tools.length === 6, 'tools/list'),
    async (i) => check((await clients[i % clients.length].client.readResource({ uri: 'board://latest' })).contents.length === 1, 'resources/read'),
    async (i) => check((await clients[i % clients.length].client.getPrompt({ name: 'summarize_board' })).messages.length === 1, 'prompts/get'),
    async (i) => {
      const c = clients[i % clients.length];
      await c.client.subscribeResource({ uri: 'board://channels/general' });
      await c.client.unsubscribeResource({ uri: 'board://channels/general' });
    },
    async (i) => void (await clients[i % clients.length].client.setLoggingLevel(i % 2 ? 'debug' : 'info')),
    async (i) => {
      // Elicitation: the question goes out on this POST's stream, the answer comes back in another POST.
      const c = clients[i % clients.length];
      const answersBefore = c.trace.filter((t) => t.kind === 'answer').length;
      const text = textOf(await c.client.callTool({ name: 'sign_and_post', arguments: { text: `signed ${i}` } }));
      const match = /^Posted #\d+ signed (\S+) \(replica (\S+)\)$/.exec(text);
      check(match !== null && match[1] === c.name, `sign_and_post: ${text}`);
      const answer = c.trace.filter((t) => t.kind === 'answer')[answersBefore];
      if (answer && answer.replica !== match![2]) report.elicitationsElsewhere++;
    },
    async () => void report.whoami.add(textOf((await modern(proxy.url, 'tools/call', { name: 'whoami', arguments: {} })).result)),
    async () => check((await modern(proxy.url, 'tools/list', {})).result.tools.length === 6, '2026 tools/list'),
    async () => check((await modern(proxy.url, 'resources/read', { uri: 'board://latest' })).result.contents.length === 1, '2026 resources/read'),
    async (i) => check(/^Posted #\d+/.test(textOf((await modern(proxy.url, 'tools/call', { name: 'post_message', arguments: { text: `modern ${i}`, channel: 'modern' } })).result)), '2026 post'),
    async (i) => {
      // MRTR: input_required, then the retry with the answer and the requestState, wherever it lands.
      const params = { name: 'sign_and_post', arguments: { text: `mrtr ${i}` } };
      const first = await modern(proxy.url, 'tools/call', params, { elicitation: {} });
      check(first.result.resultType === 'input_required', `MRTR first round: ${JSON.stringify(first.result)}`);
      const [key] = Object.keys(first.result.inputRequests);
      const retry = await modern(
        proxy.url,
        'tools/call',
        { ...params, inputResponses: { [key]: { action: 'accept', content: { name: 'modern' } } }, requestState: first.result.requestState },
        { elicitation: {} },
      );
      check(/^Posted #\d+ signed modern/.test(textOf(retry.result)), `MRTR retry: ${JSON.stringify(retry.result)}`);
      if (retry.upstream !== first.upstream) report.mrtrElsewhere++;
    },
  ];
  let issued = 0;
  const worker = async () => {
    while (issued < total) {
      const i = issued++;
      try {
        await operations[i % operations.length](i);
      } catch (error) {
        report.errors.push(`#${i} (${i % operations.length}): ${error instanceof Error ? error.message : String(error)}`);
      }
      report.done++;
      onProgress(report.done);
    }
  };
  await Promise.all(Array.from({ length: workers }, worker));
  return report;
}

// ---- the tests ------------------------------------------------------------------------

describe('the board cluster: redis-server, 3 replica processes, a round-robin proxy', () => {
  it('serves 1,000 mixed requests (SDK sessions and 2026-07-28) through the proxy with no error, on every replica', async () => {
    const clients = await Promise.all(['alice', 'bob', 'carol', 'dave'].map(sdkClient));
    const report = await runLoad(clients, 1000, 8);
    expect(report.errors).toEqual([]);
    expect(report.done).toBe(1000);
    expect([...report.whoami].sort()).toEqual(['replica-1', 'replica-2', 'replica-3']);
    expect(report.mrtrElsewhere).toBeGreaterThan(0);
    expect(report.elicitationsElsewhere).toBeGreaterThan(0);
    // Every replica served (the proxy's count), and every session was served by more than one.
    for (const stats of proxy.stats()) expect(stats.served).toBeGreaterThan(100);
    for (const c of clients) expect(new Set(c.trace.map((t) => t.replica)).size).toBe(3);
    expectValidSdkConversations();
  });

  it('fans a change out from one replica to the listeners on every replica: SDK session streams and subscriptions/listen', async () => {
    const fanout: SdkClient[] = [];
    for (let n = 0; n < 12 && new Set(fanout.map(streamReplica)).size < 3; n++) {
      const c = await sdkClient(`fan-${n}`);
      await c.client.subscribeResource({ uri: FANOUT_URI });
      await until(() => streamReplica(c) !== undefined, `the GET stream of fan-${n}`);
      fanout.push(c);
      // Each client opens with the same number of requests: shift the round-robin a step.
      await modern(proxy.url, 'tools/list', {});
    }
    const opened: Listener[] = [];
    for (let n = 0; n < 12 && new Set(opened.map((l) => l.replica)).size < 3; n++) opened.push(await listen());
    expect(new Set(fanout.map(streamReplica))).toEqual(new Set(['replica-1', 'replica-2', 'replica-3']));
    expect(new Set(opened.map((l) => l.replica))).toEqual(new Set(['replica-1', 'replica-2', 'replica-3']));

    const posted = await modern(proxy.url, 'tools/call', { name: 'post_message', arguments: { text: 'to everyone', channel: 'fanout' } });
    expect(replicaOfUpstream(posted.upstream)).toBeDefined();
    await until(() => fanout.every((c) => c.updates.get(FANOUT_URI) === 1) && opened.every((l) => l.updates === 1), 'every listener to hear the post');
    expectValidSdkConversations();
  });

  it('loses a replica (SIGKILL) under load: no request fails, no notification is lost on the others, tasks finish or fail as marked', async () => {
    const victim = replicas[0];
    const victimLabel = `127.0.0.1:${victim.port}`;
    const survivors = replicas.slice(1).map((r) => r.replicaId);

    // Two tasks running on the victim: an idempotent report (2025-11-25 session) and a
    // non-idempotent archive (2026-07-28), created there directly.
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const init = await fetch(proxy.url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'tasks', version: '1' } } }),
    });
    await messagesOf(init);
    const session = { ...headers, 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' };
    expect((await fetch(proxy.url, { method: 'POST', headers: session, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })).status).toBe(202);
    const created = await messagesOf(
      await fetch(victim.url, {
        method: 'POST',
        headers: session,
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'report', arguments: { durationMs: 6000 }, task: {} } }),
      }),
    );
    const reportTask = created[0].result.task.taskId as string;
    expect(created[0].result.task.status).toBe('working');
    const archive = await modern(victim.url, 'tools/call', { name: 'archive', arguments: { durationMs: 60_000 } }, TASKS);
    expect(archive.result).toMatchObject({ resultType: 'task', status: 'working' });
    const archiveTask = archive.result.taskId as string;

    const clients = sdkClients.slice(0, 4);
    const onSurvivors = {
      sdk: sdkClients.filter((c) => c.updates.has(FANOUT_URI) && survivors.includes(streamReplica(c)!)),
      listen: listeners.filter((l) => survivors.includes(l.replica!)),
    };
    expect(onSurvivors.sdk.length).toBeGreaterThan(0);
    expect(onSurvivors.listen.length).toBeGreaterThan(0);

    let killedAt = 0;
    let killing: Promise<void> | undefined;
    const killWhenQuiet = async () => {
      // SIGKILL at a moment no answer is half-sent by the victim (requests not answered yet are
      // the proxy's to retry; an answer cut in the middle could not be).
      const deadline = Date.now() + 10_000;
      for (;;) {
        const stats = proxy.stats().find((s) => s.target === victimLabel)!;
        if (stats.answering === 0 || Date.now() > deadline) {
          process.kill(victim.pid, 'SIGKILL');
          killedAt = Date.now();
          break;
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
      await victim.exited;
    };
    const load = runLoad(clients, 1000, 8, (done) => {
      if (done === 26) killing = killWhenQuiet();
    });

    await until(() => killedAt > 0, 'the kill', 60_000);
    await killing;
    // Notifications published after the kill, by posts the survivors serve, during the load.
    const before = { sdk: onSurvivors.sdk.map((c) => c.updates.get(FANOUT_URI)!), listen: onSurvivors.listen.map((l) => l.updates) };
    const K = 5;
    for (let k = 0; k < K; k++) await modern(proxy.url, 'tools/call', { name: 'post_message', arguments: { text: `after the kill ${k}`, channel: 'fanout' } });

    const report = await load;
    expect(report.errors).toEqual([]);
    expect(report.done).toBe(1000);
    const victimStats = proxy.stats().find((s) => s.target === victimLabel)!;
    expect(victimStats.retried).toBeGreaterThan(0); // the proxy went around it

    await until(
      () => onSurvivors.sdk.every((c, i) => c.updates.get(FANOUT_URI)! >= before.sdk[i] + K) && onSurvivors.listen.every((l, i) => l.updates >= before.listen[i] + K),
      'the survivors’ listeners to hear every post after the kill',
    );
    await sleep(200);
    expect(onSurvivors.sdk.map((c) => c.updates.get(FANOUT_URI))).toEqual(before.sdk.map((n) => n + K));
    expect(onSurvivors.listen.map((l) => l.updates)).toEqual(before.listen.map((n) => n + K));
    expect(onSurvivors.listen.every((l) => !l.ended)).toBe(true);

    // The idempotent task ran again on a survivor: its tasks/result arrives (through the proxy).
    const result = await messagesOf(
      await fetch(proxy.url, { method: 'POST', headers: session, body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tasks/result', params: { taskId: reportTask } }) }),
    );
    const text = textOf(result[0].result);
    expect(text).toMatch(/^Report by replica replica-[23]: \d+ messages/);
    // The non-idempotent one failed, saying why.
    let task: Message = {};
    for (let tries = 0; tries < 100; tries++) {
      task = (await modern(proxy.url, 'tasks/get', { taskId: archiveTask }, TASKS)).result;
      if (task.status !== 'working') break;
      await sleep(100);
    }
    expect(task).toMatchObject({ status: 'failed', statusMessage: expect.stringMatching(/stopped before it finished.*not marked idempotent.*not run again/) });
    expect(task.error.message).toMatch(/not run again/);
    expectValidSdkConversations();
  });
});
