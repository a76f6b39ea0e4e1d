/**
 * The guards of @typemcp/guards on two replicas sharing one redis-server (each clustered with
 * the redis plugin, its limits in a RedisRateLimitStore and its cached results in a
 * RedisResultCache), over real HTTP, each request sent to the next replica in turn (no
 * stickiness), callers signed in with tokens of a TestIssuer: a limit of N a window allows N
 * calls across both and refuses the next (429, -32023, Retry-After); a cached tool runs once
 * per TTL across both and a caller never gets another's result; a timeout answers the client
 * and the replica serves on; the audit log has one line per request and no argument value
 * unless opted in. Then Redis frozen (SIGSTOP): limits fail open and the cache is bypassed
 * within the command bound, and both count and cache again after SIGCONT.
 */
import 'reflect-metadata';
import { IsOptional, IsString } from 'class-validator';
import { Redis } from 'ioredis';
import { Context, McpServer, metadataStore, Tool } from '@typemcp/core';
import { auth } from '@typemcp/auth';
import { TestIssuer } from '@typemcp/auth/testing';
import { auditLog, CacheResult, jsonLinesLogger, rateLimit, ResultCache, timeouts } from '@typemcp/guards';
import { redis, RedisRateLimitStore, RedisResultCache } from '@typemcp/redis';
import { roundRobinFetch } from '../../../test-support/roundRobinFetch';
import { startRedis } from '../../../test-support/redisServer';
import type { RedisServer } from '../../../test-support/redisServer';

jest.setTimeout(60_000);

const SECRET = 'guards-replicas-test-secret-0123456789';
/** The resource both replicas protect: the front's address, as clients know it. */
const RESOURCE = 'http://mcp.test/mcp';
const BOUND_MS = 400;
const LIMIT = 3;
const WINDOW_MS = 60_000;
const CACHE_TTL_MS = 1_500;

/** Every run of the cached tool, on either replica: who asked. */
const profileRuns: string[] = [];
/** Why each run of the slow tool was aborted. */
const slowAborted: unknown[] = [];

class NoteInput {
  @IsString() note!: string;
  @IsOptional() @IsString() password?: string;
}

class GuardedTools {
  @Tool({ description: 'A tool limited per caller' })
  limited(ctx: Context): string {
    return `limited for ${ctx.principal!.subject}`;
  }

  @Tool({ description: "The caller's own profile", annotations: { readOnlyHint: true } })
  @CacheResult({ ttlMs: CACHE_TTL_MS })
  profile(ctx: Context): string {
    const subject = ctx.principal!.subject;
    profileRuns.push(subject);
    return `private profile of ${subject}, run ${profileRuns.length}`;
  }

  @Tool({ description: 'Takes longer than its time limit' })
  async slow(ctx: Context): Promise<string> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 5_000);
      ctx.signal.addEventListener('abort', () => {
        slowAborted.push(ctx.signal.reason);
        clearTimeout(timer);
        resolve();
      });
    });
    return 'too late';
  }

  @Tool({ description: 'Keeps a note' })
  keep(input: NoteInput): string {
    return `kept ${input.note.length} characters`;
  }

  @Tool({ description: 'Keeps a note, audited with its text' })
  keep_audited(input: NoteInput): string {
    return `kept ${input.note.length} characters`;
  }
}

let redisServer: RedisServer;
let issuer: TestIssuer;
let tokens: { alice: string; bob: string };
let replicas: Array<{ name: string; server: McpServer; url: URL; client: Redis; errors: string[] }>;
let auditLines: Array<Record<string, unknown>>;
let balanced: typeof fetch;

beforeAll(async () => {
  redisServer = await startRedis();
  issuer = await TestIssuer.start();
  tokens = {
    alice: await issuer.token({ audience: RESOURCE, subject: 'alice', expiresIn: '1h' }),
    bob: await issuer.token({ audience: RESOURCE, subject: 'bob', expiresIn: '1h' }),
  };
});

afterAll(async () => {
  await issuer?.close();
  await redisServer?.stop();
});

beforeEach(async () => {
  profileRuns.length = 0;
  slowAborted.length = 0;
  auditLines = [];
  replicas = [];
  const keyPrefix = `gr${process.pid}-${Date.now()}:`;
  for (const name of ['a', 'b']) {
    const errors: string[] = [];
    // Each replica its own connection, as separate processes would have.
    const client = new Redis(redisServer.url);
    const server = new McpServer({ name: 'guarded', version: '1.0.0', providers: [GuardedTools], requestState: { secret: SECRET }, onError: (what) => errors.push(what) });
    server.plugin(redis, { url: redisServer.url, keyPrefix, replicaId: name, commandTimeoutMs: BOUND_MS });
    server.plugin(auth, { resource: RESOURCE, issuer: issuer.url });
    server.plugin(rateLimit, { tools: { limited: { limit: LIMIT, windowMs: WINDOW_MS } }, store: new RedisRateLimitStore(client, { keyPrefix, commandTimeoutMs: BOUND_MS }) });
    server.plugin(new ResultCache({ store: new RedisResultCache(client, { keyPrefix, commandTimeoutMs: BOUND_MS }) }));
    server.plugin(timeouts, { tools: { slow: 300 } });
    server.plugin(auditLog, {
      logger: jsonLinesLogger((line) => auditLines.push({ replica: name, ...(JSON.parse(line) as Record<string, unknown>) })),
      arguments: { tools: { keep_audited: ['note'] } },
    });
    const { url } = await server.listen({ transport: 'http', port: 0, handleSignals: false });
    replicas.push({ name, server, url: new URL(url), client, errors });
  }
  balanced = roundRobinFetch(replicas.map(({ name, url }) => ({ name, url })));
});

afterEach(async () => {
  try {
    process.kill(redisServer.pid, 'SIGCONT');
  } catch {
    // already gone
  }
  await Promise.all(replicas.map(({ server }) => server.close()));
  await Promise.all(replicas.map(({ client }) => client.quit().catch(() => client.disconnect())));
});

afterAll(() => {
  metadataStore.clear();
});

let nextId = 1;

/** A 2026-07-28 tools/call through the round-robin front, signed in as `who`. */
async function call(who: keyof typeof tokens, name: string, args: Record<string, unknown> = {}) {
  const started = performance.now();
  const response = await balanced(replicas[0].url.href, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': name,
      authorization: `Bearer ${tokens[who]}`,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: nextId++,
      method: 'tools/call',
      params: { name, arguments: args, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } },
    }),
  });
  const body = (await response.json()) as { result?: { content: Array<{ text: string }>; isError?: boolean }; error?: { code: number; message: string; data?: { retryAfterMs?: number } } };
  return { status: response.status, retryAfter: response.headers.get('retry-after'), body, text: body.result?.content[0]?.text, ms: performance.now() - started };
}

it('a limit of N a window allows exactly N calls across both replicas, then 429 with -32023 and its Retry-After; each caller counted apart', async () => {
  const allowed = [];
  for (let i = 0; i < LIMIT; i++) allowed.push(await call('alice', 'limited'));
  expect(allowed.map((a) => [a.status, a.text])).toEqual(Array.from({ length: LIMIT }, () => [200, 'limited for alice']));

  const refused = await call('alice', 'limited');
  expect(refused.status).toBe(429);
  expect(refused.body.error).toMatchObject({ code: -32023 });
  const retryAfterMs = refused.body.error!.data!.retryAfterMs!;
  // Until the first of the N leaves the window: within the window, not much less than all of it.
  expect(retryAfterMs).toBeLessThanOrEqual(WINDOW_MS);
  expect(retryAfterMs).toBeGreaterThan(WINDOW_MS - 10_000);
  expect(refused.retryAfter).toBe(String(Math.ceil(retryAfterMs / 1000)));
  // Refused on the other replica too.
  expect((await call('alice', 'limited')).status).toBe(429);
  // Bob has his own count.
  expect(await call('bob', 'limited')).toMatchObject({ status: 200, text: 'limited for bob' });
});

it('a cached tool runs once per TTL across both replicas, and a private result is never served to another caller', async () => {
  const alice = [];
  for (let i = 0; i < 4; i++) alice.push(await call('alice', 'profile'));
  expect(alice.map((a) => a.text)).toEqual(Array.from({ length: 4 }, () => 'private profile of alice, run 1'));
  expect(profileRuns).toEqual(['alice']);

  const bob = [];
  for (let i = 0; i < 3; i++) bob.push(await call('bob', 'profile'));
  expect(bob.map((b) => b.text)).toEqual(Array.from({ length: 3 }, () => 'private profile of bob, run 2'));
  expect(profileRuns).toEqual(['alice', 'bob']);

  // Past the TTL: one more run for alice, then cached again on both replicas.
  await new Promise((resolve) => setTimeout(resolve, CACHE_TTL_MS + 200));
  const again = [await call('alice', 'profile'), await call('alice', 'profile'), await call('alice', 'profile')];
  expect(again.map((a) => a.text)).toEqual(Array.from({ length: 3 }, () => 'private profile of alice, run 3'));
  expect(profileRuns).toEqual(['alice', 'bob', 'alice']);
});

it('a timeout answers the client with its tool error, and both replicas keep serving', async () => {
  const timedOut = await call('alice', 'slow');
  expect(timedOut.status).toBe(200);
  expect(timedOut.body.result).toMatchObject({ content: [{ type: 'text', text: 'Tool "slow" did not finish within 300 ms' }], isError: true });
  expect(timedOut.ms).toBeLessThan(2_500);
  // The handler was told, and stopped.
  expect(slowAborted).toEqual([expect.objectContaining({ message: 'Tool "slow" did not finish within 300 ms' })]);
  const next = [await call('alice', 'limited'), await call('bob', 'limited')];
  expect(next.map((n) => n.status)).toEqual([200, 200]);
});

it('the audit log has one line per request, on the replica that served it, with no argument value unless opted in', async () => {
  await call('alice', 'keep', { note: 'the launch code is 0000', password: 'hunter2' });
  await call('bob', 'keep_audited', { note: 'a public note', password: 'hunter2' });
  await call('alice', 'limited');
  const lines = auditLines;
  expect(lines).toHaveLength(3);
  expect(lines.map((line) => [line.replica, line.item, (line.caller as { id?: string }).id, line.outcome])).toEqual([
    ['a', 'keep', expect.stringContaining('alice'), 'result'],
    ['b', 'keep_audited', expect.stringContaining('bob'), 'result'],
    ['a', 'limited', expect.stringContaining('alice'), 'result'],
  ]);
  expect(lines[0].arguments).toBeUndefined();
  expect(lines[1].arguments).toEqual({ note: 'a public note' });
  const everything = JSON.stringify(auditLines);
  expect(everything).not.toContain('launch code');
  expect(everything).not.toContain('hunter2');
});

it('with Redis frozen, limits fail open and the cache is bypassed within the bound; both work again after SIGCONT', async () => {
  expect((await call('alice', 'profile')).text).toBe('private profile of alice, run 1');
  for (let i = 0; i < LIMIT; i++) expect((await call('alice', 'limited')).status).toBe(200);
  expect((await call('alice', 'limited')).status).toBe(429);

  process.kill(redisServer.pid, 'SIGSTOP');
  // Each replica waits out the bound once, then fails fast: let through, run without the cache.
  const frozen = [];
  for (let i = 0; i < 4; i++) frozen.push(await call('alice', 'limited'));
  expect(frozen.map((f) => [f.status, f.text])).toEqual(Array.from({ length: 4 }, () => [200, 'limited for alice']));
  expect(Math.max(...frozen.map((f) => f.ms))).toBeLessThan(BOUND_MS + 1_500);
  expect(frozen.slice(2).every((f) => f.ms < BOUND_MS)).toBe(true);
  const bypassed = [await call('alice', 'profile'), await call('alice', 'profile')];
  expect(bypassed.map((b) => b.text)).toEqual(['private profile of alice, run 2', 'private profile of alice, run 3']);
  expect(bypassed.every((b) => b.ms < BOUND_MS + 1_500)).toBe(true);
  for (const { errors } of replicas) {
    expect(errors).toEqual(
      expect.arrayContaining([
        'plugin "guards:rate-limit": the rate limit store failed; until it answers again, requests are let through (onStoreError: "allow")',
        'plugin "guards:cache": the result cache store failed; items run without the cache until it answers',
      ]),
    );
  }

  process.kill(redisServer.pid, 'SIGCONT');
  // The stores find Redis again by themselves (a PING a second): alice's window is full again.
  const deadline = Date.now() + 10_000;
  let answer = await call('alice', 'limited');
  while (answer.status !== 429 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    answer = await call('alice', 'limited');
  }
  expect(answer.status).toBe(429);
  expect((await call('alice', 'limited')).status).toBe(429);
  // The cache keeps and serves results again, on both replicas.
  await new Promise((resolve) => setTimeout(resolve, 1_200));
  const runs = profileRuns.length;
  const cached = [await call('bob', 'profile'), await call('bob', 'profile'), await call('bob', 'profile')];
  expect(new Set(cached.map((c) => c.text)).size).toBe(1);
  expect(profileRuns.length).toBe(runs + 1);
});
