/**
 * Redis frozen under load: three replica processes of the board (the plugin's default command
 * timeout, 5 s) over a real redis-server, which is stopped with SIGSTOP for FREEZE_MS (default
 * 20 s; `npm run soak:freeze` freezes it 60 s) while clients keep calling: sessions held by the
 * replicas, sessions each used on another replica than the one that opened it, new sessions, 2026-07-28 calls that need no Redis, and board reads that do. Every
 * request must be answered within 10 s; what needs no Redis is served all along; after SIGCONT
 * every kind of request is served again within seconds.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { startRedis } from '../../../test-support/redisServer';
import type { RedisServer } from '../../../test-support/redisServer';
import { runTsPath } from '../../../test-support/spawnServer';
import { spawnReplica } from '../src/processes';
import type { ReplicaProcess } from '../src/processes';

const FREEZE_MS = Number(process.env.FREEZE_MS ?? 20_000);
const BOUND_MS = 10_000;
jest.setTimeout(FREEZE_MS + 90_000);

const SECRET = randomBytes(24).toString('base64url');
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const MODERN_META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** session: held by every replica; roaming: opened on one replica, called on the next (which must read it from Redis). */
type Kind = 'session' | 'roaming' | 'initialize' | 'stateless' | 'board';
interface Outcome {
  kind: Kind;
  replica: string;
  startedAt: number;
  ms: number;
  /** 200 with a result, the HTTP status otherwise, 0 when the connection failed. */
  status: number;
  ok: boolean;
  retryAfter: string | null;
}

let redis: RedisServer;
let replicas: ReplicaProcess[] = [];

beforeAll(async () => {
  redis = await startRedis();
  replicas = await Promise.all(
    ['replica-1', 'replica-2', 'replica-3'].map((replicaId) =>
      spawnReplica({ replicaId, redisUrl: redis.url, requestStateSecret: SECRET, script: path.join(__dirname, '../src/replica.ts'), nodeArgs: ['-r', runTsPath], stderr: 'ignore', timeoutMs: 60_000 }),
    ),
  );
}, 90_000);

afterAll(async () => {
  try {
    process.kill(redis.pid, 'SIGCONT');
  } catch {
    // gone already
  }
  await Promise.all(replicas.map((replica) => replica.stop()));
  await redis?.stop();
});

async function timed(kind: Kind, replica: ReplicaProcess, request: () => Promise<Response>): Promise<Outcome> {
  const startedAt = Date.now();
  try {
    const response = await request();
    const text = await response.text();
    const ok = response.status === 200 && text.includes('"result"') && !text.includes('"isError":true');
    return { kind, replica: replica.replicaId, startedAt, ms: Date.now() - startedAt, status: response.status, ok, retryAfter: response.headers.get('retry-after') };
  } catch {
    return { kind, replica: replica.replicaId, startedAt, ms: Date.now() - startedAt, status: 0, ok: false, retryAfter: null };
  }
}

async function openSession(replica: ReplicaProcess): Promise<string | undefined> {
  const init = await fetch(replica.url, {
    method: 'POST',
    headers: HEADERS,
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'freeze', version: '1' } } }),
  });
  await init.text();
  const session = init.headers.get('mcp-session-id') ?? undefined;
  if (session) {
    await fetch(replica.url, { method: 'POST', headers: { ...HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' }, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
  }
  return session;
}

/** Opens a session on the replica after `replica`, then calls in it on `replica`. */
const roam = async (replica: ReplicaProcess): Promise<Outcome> => {
  const opener = replicas[(replicas.indexOf(replica) + 1) % replicas.length];
  const session = await openSession(opener).catch(() => undefined);
  return session === undefined ? { kind: 'roaming', replica: replica.replicaId, startedAt: Date.now(), ms: 0, status: 0, ok: false, retryAfter: null } : call('roaming', session)(replica);
};

const call = (kind: Kind, session?: string) => (replica: ReplicaProcess) =>
  timed(kind, replica, () => {
    if (kind === 'initialize') {
      return fetch(replica.url, {
        method: 'POST',
        headers: HEADERS,
        body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'freeze', version: '1' } } }),
      });
    }
    if (kind === 'session' || kind === 'roaming') {
      return fetch(replica.url, {
        method: 'POST',
        headers: { ...HEADERS, 'mcp-session-id': session!, 'mcp-protocol-version': '2025-11-25' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } }),
      });
    }
    const name = kind === 'board' ? 'read_messages' : 'whoami';
    return fetch(replica.url, {
      method: 'POST',
      headers: { ...HEADERS, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': name },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name, arguments: kind === 'board' ? { limit: 1 } : {}, _meta: MODERN_META } }),
    });
  });

it(`answers every request within ${BOUND_MS / 1000} s while Redis is frozen ${FREEZE_MS / 1000} s under load, and serves normally again soon after SIGCONT`, async () => {
  const sessions = await Promise.all(replicas.map(openSession));
  const workers: Array<(replica: ReplicaProcess) => Promise<Outcome>> = [
    ...sessions.map((session) => call('session', session)),
    ...sessions.map((session) => call('session', session)),
    call('initialize'),
    roam,
    roam,
    call('stateless'),
    call('stateless'),
    call('board'),
    call('board'),
  ];
  const outcomes: Outcome[] = [];
  let running = true;
  let turn = 0;
  const load = workers.map(async (work) => {
    while (running) {
      outcomes.push(await work(replicas[turn++ % replicas.length]));
      await sleep(20);
    }
  });

  await sleep(2_000);
  const frozenAt = Date.now();
  process.kill(redis.pid, 'SIGSTOP');
  await sleep(FREEZE_MS);
  process.kill(redis.pid, 'SIGCONT');
  const thawedAt = Date.now();
  // Served again: every kind succeeds on every replica, and keeps succeeding, 3 s in a row.
  let recoveredAt: number | undefined;
  while (Date.now() - thawedAt < 30_000) {
    await sleep(250);
    const recent = outcomes.filter((outcome) => outcome.startedAt > Date.now() - 3_000 && outcome.startedAt > thawedAt);
    const kinds = new Set(recent.filter((outcome) => outcome.ok).map((outcome) => `${outcome.kind} ${outcome.replica}`));
    if (recent.length > 0 && recent.every((outcome) => outcome.ok) && kinds.size === 15) {
      recoveredAt = Math.min(...recent.map((outcome) => outcome.startedAt));
      break;
    }
  }
  running = false;
  await Promise.all(load);

  const during = outcomes.filter((outcome) => outcome.startedAt >= frozenAt && outcome.startedAt < thawedAt);
  const slowest = Math.max(...outcomes.map((outcome) => outcome.ms));
  const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)] ?? 0;
  const summary = (kind: Kind) => {
    const mine = during.filter((outcome) => outcome.kind === kind);
    return { requests: mine.length, ok: mine.filter((outcome) => outcome.ok).length, medianMs: median(mine.map((outcome) => outcome.ms)), maxMs: Math.max(0, ...mine.map((outcome) => outcome.ms)) };
  };
  const report = {
    freezeMs: FREEZE_MS,
    requests: outcomes.length,
    slowestMs: slowest,
    frozen: { session: summary('session'), roaming: summary('roaming'), initialize: summary('initialize'), stateless: summary('stateless'), board: summary('board') },
    recoveredAfterMs: recoveredAt === undefined ? undefined : recoveredAt - thawedAt,
  };
  process.stderr.write(`redis frozen under load: ${JSON.stringify(report)}\n`);

  // Every request was answered (no connection failed), and within the bound.
  expect(outcomes.filter((outcome) => outcome.status === 0)).toEqual([]);
  expect(slowest).toBeLessThan(BOUND_MS);
  // What needs no Redis was served all along; what does was refused clearly (503 and Retry-After) or answered a tool error.
  expect(report.frozen.stateless.ok).toBe(report.frozen.stateless.requests);
  expect(report.frozen.stateless.requests).toBeGreaterThan(10);
  expect(report.frozen.session.ok).toBe(report.frozen.session.requests);
  for (const outcome of during.filter((o) => !o.ok && o.status !== 200)) expect({ status: outcome.status, retryAfter: outcome.retryAfter }).toEqual({ status: 503, retryAfter: '1' });
  expect(report.frozen.board.ok).toBeLessThan(report.frozen.board.requests);
  expect(report.frozen.roaming.ok).toBeLessThan(report.frozen.roaming.requests);
  // Served again within seconds of SIGCONT.
  expect(report.recoveredAfterMs).toBeDefined();
  expect(report.recoveredAfterMs!).toBeLessThan(10_000);
});
