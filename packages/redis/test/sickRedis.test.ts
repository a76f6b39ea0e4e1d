/**
 * A frozen Redis (SIGSTOP on a real redis-server) against two replicas: a request that needs
 * Redis to be routed is answered 503 with Retry-After within the command timeout, the next
 * ones at once (failing fast), requests that need no Redis are served all along, and both
 * replicas serve normally again within seconds of SIGCONT.
 */
import 'reflect-metadata';
import { IsString } from 'class-validator';
import { McpServer, Tool } from '@typemcp/core';
import { redis } from '@typemcp/redis';
import { startRedis } from '../../../test-support/redisServer';
import type { RedisServer } from '../../../test-support/redisServer';

class TextInput {
  @IsString() text!: string;
}

class Tools {
  @Tool({ description: 'Echo' })
  echo(input: TextInput): string {
    return `echo ${input.text}`;
  }
}

const SECRET = 'sick-redis-test-secret-0123456789';
const TIMEOUT_MS = 400;
let redisServer: RedisServer;
let replicas: Array<{ server: McpServer; url: string; errors: string[] }>;

beforeEach(async () => {
  redisServer = await startRedis();
  replicas = [];
  for (let i = 0; i < 2; i++) {
    const errors: string[] = [];
    const server = new McpServer({
      name: `replica-${i}`,
      version: '1.0.0',
      providers: [Tools],
      requestState: { secret: SECRET },
      onError: (what) => errors.push(what),
    });
    server.plugin(redis, { url: redisServer.url, commandTimeoutMs: TIMEOUT_MS, keyPrefix: `sick${process.pid}:` });
    const { url } = await server.listen({ transport: 'http', port: 0, handleSignals: false, readinessPath: '/ready' });
    replicas.push({ server, url, errors });
  }
});

afterEach(async () => {
  try {
    process.kill(redisServer.pid, 'SIGCONT');
  } catch {
    // already gone
  }
  await Promise.all(replicas.map(({ server }) => server.close()));
  await redisServer.stop();
});

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

async function initialize(url: string): Promise<string> {
  const response = await fetch(url, {
    method: 'POST',
    headers: HEADERS,
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'sick', version: '1' } } }),
  });
  expect(response.status).toBe(200);
  await response.text();
  const session = response.headers.get('mcp-session-id')!;
  const initialized = await fetch(url, {
    method: 'POST',
    headers: { ...HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  expect(initialized.status).toBe(202);
  return session;
}

/** tools/call echo in the session, on the given replica: status, Retry-After, time taken. */
async function callInSession(url: string, session: string): Promise<{ status: number; retryAfter: string | null; ms: number; text: string }> {
  const started = performance.now();
  const response = await fetch(url, {
    method: 'POST',
    headers: { ...HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } }),
  });
  const text = await response.text();
  return { status: response.status, retryAfter: response.headers.get('retry-after'), ms: performance.now() - started, text };
}

/** A 2026-07-28 tools/call, which needs no session and so no Redis. */
async function modernCall(url: string): Promise<{ status: number; text: string }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { ...HEADERS, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'echo' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'modern' }, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } },
    }),
  });
  return { status: response.status, text: await response.text() };
}

/** What a load balancer sees at the replica's readinessPath. */
async function readiness(url: string): Promise<{ status: number; body: unknown; retryAfter: string | null }> {
  const response = await fetch(new URL('/ready', url));
  return { status: response.status, body: await response.json(), retryAfter: response.headers.get('retry-after') };
}

/** The first answer of `call` with status 200, trying for up to 10 s; else the last one. */
async function eventually(call: () => Promise<{ status: number }>): Promise<{ status: number }> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const answer = await call();
    if (answer.status === 200 || Date.now() > deadline) return answer;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

it('answers 503 with Retry-After within the command timeout while Redis is frozen, fails fast after, serves what needs no Redis, and recovers on SIGCONT', async () => {
  const [a, b] = replicas;
  expect(await readiness(b.url)).toEqual({ status: 200, body: { ready: true, checks: { redis: true } }, retryAfter: null });
  const session = await initialize(a.url);
  expect((await callInSession(b.url, session)).text).toContain('echo hi');

  process.kill(redisServer.pid, 'SIGSTOP');
  // A session B does not hold in memory is read from Redis to be routed: bounded, then refused.
  const first = await callInSession(b.url, 'a-session-this-replica-does-not-hold');
  expect(first).toMatchObject({ status: 503, retryAfter: '1' });
  expect(first.ms).toBeLessThan(TIMEOUT_MS + 1500);
  // From then on B fails fast.
  const second = await callInSession(b.url, 'another-session-it-does-not-hold');
  expect(second.status).toBe(503);
  expect(second.ms).toBeLessThan(250);
  // A new session on A is served from A's memory, within the bound (its record reaches Redis later, or is reported).
  const started = performance.now();
  const opened = await fetch(a.url, {
    method: 'POST',
    headers: HEADERS,
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'sick', version: '1' } } }),
  });
  await opened.text();
  expect(opened.status).toBe(200);
  expect(performance.now() - started).toBeLessThan(TIMEOUT_MS + 1500);
  // B tells load balancers to send its traffic elsewhere.
  expect(await readiness(b.url)).toEqual({ status: 503, body: { ready: false, checks: { redis: false } }, retryAfter: '1' });
  expect(b.server.readiness()).toEqual({ ready: false, checks: { redis: false } });
  // What needs no Redis is served all along.
  expect(await modernCall(b.url)).toMatchObject({ status: 200, text: expect.stringContaining('echo modern') });
  expect(b.errors).toContain('plugin "@typemcp/redis": Redis does not answer; requests that need it fail fast (503) until it does');
  expect(b.errors).toContain('an HTTP request could not be served');

  process.kill(redisServer.pid, 'SIGCONT');
  const resumedAt = Date.now();
  // Both replicas find Redis again by themselves (a PING a second), and serve a session either made.
  expect(await eventually(() => callInSession(b.url, session))).toMatchObject({ status: 200, text: expect.stringContaining('echo hi') });
  const fresh = await initialize(b.url);
  expect(await eventually(() => callInSession(a.url, fresh))).toMatchObject({ status: 200, text: expect.stringContaining('echo hi') });
  expect(Date.now() - resumedAt).toBeLessThan(5_000);
  expect(await readiness(b.url)).toMatchObject({ status: 200, body: { ready: true } });
  expect(b.errors).toContain('plugin "@typemcp/redis": Redis answers again; requests that need it are served again');
}, 60_000);
