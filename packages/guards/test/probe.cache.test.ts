/**
 * Attacks on the result cache (`ResultCache`, `MemoryResultCache`, `RedisResultCache`): each
 * test tries to make a result reach a caller it was not made for, to make two calls share a
 * key they should not, to poison an entry, or to exhaust memory, and asserts the safe outcome.
 */
import 'reflect-metadata';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { Context, McpServer, metadataStore, Resource, Scopes, Tool } from '@typemcp/core';
import type { Principal } from '@typemcp/core';
import { auth } from '@typemcp/auth';
import { TestIssuer } from '@typemcp/auth/testing';
import { RedisResultCache } from '@typemcp/redis';
import { createTestClient } from '@typemcp/testing';
import type { TestClient } from '@typemcp/testing';
import { CacheResult, MemoryResultCache, ResultCache, timeouts } from '@typemcp/guards';
import type { ResultCacheOptions } from '@typemcp/guards';
import { startRedis } from '../../../test-support/redisServer';
import type { RedisServer } from '../../../test-support/redisServer';

let calls: Record<string, number>;
const ran = (name: string) => (calls[name] = (calls[name] ?? 0) + 1);
let gate: Promise<void>;
let open: () => void;

/** Describes raw arguments so that values JSON writes alike (-0 and 0, Infinity and null, two Dates) read apart. */
function describeRaw(value: unknown): string {
  return JSON.stringify(value, function (this: Record<string, unknown>, key, v: unknown) {
    const raw = this[key];
    if (typeof raw === 'number' && (Object.is(raw, -0) || !Number.isFinite(raw))) return `<num ${Object.is(raw, -0) ? '-0' : String(raw)}>`;
    // Tagged, not instanceof: a structured clone may come from another realm.
    const tag = Object.prototype.toString.call(raw);
    if (tag === '[object Date]') return `<date ${(raw as Date).getTime()}>`;
    if (tag === '[object Map]') return `<map ${JSON.stringify([...(raw as Map<unknown, unknown>)])}>`;
    return v;
  });
}

function declareProviders() {
  class Items {
    @Tool({ description: 'Who asks' })
    @CacheResult({ ttlMs: 60_000 })
    whoami(ctx: Context): string {
      const p = ctx.principal;
      return `${p === undefined ? 'nobody' : `${String(p.claims?.iss)}|${p.subject}|${p.scopes.join(',')}`} #${ran('whoami')}`;
    }

    @Tool({ description: 'Echoes its raw arguments', inputSchema: { type: 'object' } })
    @CacheResult({ ttlMs: 60_000, scope: 'public' })
    echo(args: Record<string, unknown>): string {
      return `${describeRaw(args)} #${ran('echo')}`;
    }

    @Tool({ description: 'Needs a scope, private' })
    @CacheResult({ ttlMs: 60_000 })
    @Scopes('notes:read')
    notes(ctx: Context): string {
      return `notes of ${ctx.principal?.subject} with ${ctx.principal?.scopes.join(',')} #${ran('notes')}`;
    }

    @Tool({ description: 'Waits for the gate' })
    @CacheResult({ ttlMs: 60_000 })
    async slow(): Promise<string> {
      const n = ran('slow');
      await gate;
      return `slow #${n}`;
    }

    @Tool({ description: 'Ignores its signal, finishes late' })
    @CacheResult({ ttlMs: 60_000 })
    async late(): Promise<string> {
      const n = ran('late');
      await new Promise((resolve) => setTimeout(resolve, 80));
      return `late #${n}`;
    }

    @Resource({ uri: 'me://profile', mimeType: 'text/plain' })
    @CacheResult({ ttlMs: 60_000 })
    profile(ctx: Context): string {
      return `profile of ${ctx.principal?.subject ?? 'nobody'} #${ran('profile')}`;
    }

    @Resource({ uri: 'docs://pages/{id}', mimeType: 'text/plain' })
    @CacheResult({ ttlMs: 60_000, scope: 'public' })
    page(vars: { id: string }): string {
      return `page ${vars.id} #${ran('page')}`;
    }
  }
  return { Items };
}

let Items: ReturnType<typeof declareProviders>['Items'];
const cleanups: Array<() => Promise<unknown> | void> = [];

beforeEach(() => {
  metadataStore.clear();
  ({ Items } = declareProviders());
  calls = {};
  gate = new Promise((resolve) => (open = resolve));
});
afterEach(async () => {
  open();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function serverWith(cache: ResultCache, extra: Partial<ConstructorParameters<typeof McpServer>[0]> = {}): McpServer {
  const server = new McpServer({ name: 'probe', version: '1.0.0', providers: [Items], onError: () => undefined, ...extra }).plugin(cache);
  cleanups.push(() => server.close());
  return server;
}

async function clientOf(server: McpServer, options: Parameters<typeof createTestClient>[1] = {}): Promise<TestClient> {
  const client = await createTestClient(server, options);
  cleanups.push(() => client.close());
  return client;
}

const textOf = (result: { content?: unknown }) => (result.content as Array<{ text: string }>)[0].text;
const call = async (client: TestClient, name: string, args?: Record<string, unknown>) => textOf(await client.callTool(name, args as never));
const principal = (subject: string, iss: string | undefined, scopes: string[] = [], roles?: string[]): Principal => ({
  subject,
  scopes,
  roles,
  claims: iss === undefined ? {} : { iss },
});

/** A node HTTP server for `server` on 127.0.0.1:0, stopped after the test. */
async function listen(server: McpServer, options: Parameters<McpServer['httpHandler']>[0] = {}): Promise<string> {
  const http: Server = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      }),
  );
  const handler = server.httpHandler(options);
  http.on('request', (req, res) => void handler(req, res));
  return `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
}

/** A stateless 2026-07-28 request over HTTP, the body written as given (raw JSON text, so 1e400 and -0 arrive as such). */
async function postRaw(url: string, method: string, paramsJson: string, headers: Record<string, string> = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, ...headers },
    body: `{"jsonrpc":"2.0","id":1,"method":${JSON.stringify(method)},"params":${paramsJson}}`,
  });
  const text = await response.text();
  return { status: response.status, body: JSON.parse(text) as Record<string, unknown> };
}

const META = '"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}';
async function callOverHttp(url: string, name: string, argumentsJson = '{}', headers: Record<string, string> = {}): Promise<string> {
  const { status, body } = await postRaw(url, 'tools/call', `{"name":${JSON.stringify(name)},"arguments":${argumentsJson},${META}}`, { 'mcp-name': name, ...headers });
  expect(status).toBe(200);
  const result = body.result as { content: Array<{ text: string }> } | undefined;
  if (result === undefined) throw new Error(`no result: ${JSON.stringify(body)}`);
  return result.content[0].text;
}

describe('probe: a private result never reaches another principal', () => {
  it('keeps principals apart whose issuer and subject would read alike if joined with the key separators', async () => {
    const server = serverWith(new ResultCache());
    // Pairs that a key joining issuer, subject, grant and arguments with "\n", "|" or ":" would confuse.
    const principals = [
      principal('alice', 'https://a.example'),
      principal('alice', 'https://b.example'),
      principal('alice', undefined),
      principal('\nalice', 'https://a.example'),
      principal('alice', 'https://a.example\n'),
      principal('a","alice', ''),
      principal('x\n[[],[]]\n{}', ''),
      principal('x', '', ['[]'], []),
      principal('p:["","alice"]', undefined),
    ];
    const seen: string[] = [];
    for (const p of principals) {
      const client = await clientOf(server, { principal: p });
      seen.push(await call(client, 'whoami'));
      // Its own entry on the second call.
      expect(await call(client, 'whoami')).toBe(seen.at(-1));
    }
    expect(calls.whoami).toBe(principals.length);
    expect(new Set(seen).size).toBe(principals.length);
    // And the local anonymous client of the same server has its own too.
    const local = await clientOf(server);
    expect(await call(local, 'whoami')).toBe(`nobody #${principals.length + 1}`);
  });

  it('over HTTP: the same subject from two issuers gets two entries; an anonymous HTTP caller never gets the local client\'s entry', async () => {
    const server = serverWith(new ResultCache());
    // A host's own authentication that accepts two issuers: the subject and issuer are headers here.
    const url = await listen(server, {
      principal: (req) => {
        const sub = req.headers['x-sub'];
        return typeof sub === 'string' ? principal(decodeURIComponent(sub), decodeURIComponent(String(req.headers['x-iss']))) : undefined;
      },
    });
    const as = (sub: string, iss: string) => ({ 'x-sub': encodeURIComponent(sub), 'x-iss': encodeURIComponent(iss) });
    const a = await callOverHttp(url, 'whoami', '{}', as('alice', 'https://a.example'));
    const b = await callOverHttp(url, 'whoami', '{}', as('alice', 'https://b.example'));
    expect([a, b]).toEqual(['https://a.example|alice| #1', 'https://b.example|alice| #2']);
    expect(await callOverHttp(url, 'whoami', '{}', as('alice', 'https://a.example'))).toBe(a);
    // The in-memory (local) client fills an anonymous private entry; an anonymous HTTP caller does not get it.
    const local = await clientOf(server);
    expect(await call(local, 'whoami')).toBe('nobody #3');
    expect(await callOverHttp(url, 'whoami')).toBe('nobody #4');
    expect(await callOverHttp(url, 'whoami')).toBe('nobody #5');
  });

  it('a token with fewer scopes (or another role) than the one that filled the entry does not reuse it', async () => {
    const issuer = await TestIssuer.start();
    cleanups.push(() => issuer.close());
    const server = serverWith(new ResultCache());
    const http: Server = createServer();
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => (http.close(() => resolve()), http.closeAllConnections())));
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
    server.plugin(auth, { resource: url, issuer: issuer.url });
    const handler = server.httpHandler();
    http.on('request', (req, res) => void handler(req, res));
    const wide = await issuer.token({ audience: url, subject: 'alice', scopes: ['notes:read', 'notes:write'] });
    const narrow = await issuer.token({ audience: url, subject: 'alice', scopes: ['notes:read'] });
    const none = await issuer.token({ audience: url, subject: 'alice', scopes: [] });
    const admin = await issuer.token({ audience: url, subject: 'alice', scopes: ['notes:read'], claims: { roles: ['admin'] } });
    const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
    expect(await callOverHttp(url, 'notes', '{}', bearer(wide))).toBe('notes of alice with notes:read,notes:write #1');
    expect(await callOverHttp(url, 'notes', '{}', bearer(narrow))).toBe('notes of alice with notes:read #2');
    expect(await callOverHttp(url, 'notes', '{}', bearer(admin))).toBe('notes of alice with notes:read #3');
    // Without the scope: refused (403 or an error), never the cached result.
    const refused = await postRaw(url, 'tools/call', `{"name":"notes","arguments":{},${META}}`, { 'mcp-name': 'notes', ...bearer(none) });
    expect(JSON.stringify(refused.body)).not.toContain('notes of alice');
    expect(calls.notes).toBe(3);
  });

  it('a mounted server\'s cached tool keeps its entries per principal under the parent\'s name', async () => {
    metadataStore.clear();
    ({ Items } = declareProviders());
    const child = new McpServer({ name: 'child', version: '1.0.0', providers: [Items] });
    const parent = new McpServer({ name: 'parent', version: '1.0.0', providers: [], onError: () => undefined });
    cleanups.push(() => parent.close(), () => child.close());
    parent.mount(child, { namespace: 'kid' });
    parent.plugin(new ResultCache());
    const alice = await clientOf(parent, { principal: principal('alice', 'https://a.example') });
    const bob = await clientOf(parent, { principal: principal('bob', 'https://a.example') });
    expect(await call(alice, 'kid_whoami')).toBe('https://a.example|alice| #1');
    expect(await call(bob, 'kid_whoami')).toBe('https://a.example|bob| #2');
    expect(await call(alice, 'kid_whoami')).toBe('https://a.example|alice| #1');
    expect(calls.whoami).toBe(2);
  });

  it('tool search\'s call_tool never serves one caller\'s entry to another, nor shares keys with a direct call', async () => {
    const server = serverWith(new ResultCache(), { toolSearch: true });
    const alice = await clientOf(server, { principal: principal('alice', 'https://a.example') });
    const bob = await clientOf(server, { principal: principal('bob', 'https://a.example') });
    expect(await call(alice, 'call_tool', { name: 'whoami' })).toBe('https://a.example|alice| #1');
    expect(await call(bob, 'call_tool', { name: 'whoami' })).toBe('https://a.example|bob| #2');
    // A direct call whose arguments look like call_tool's is another call: the echo shows what the tool got.
    const direct = await call(alice, 'echo', { name: 'echo', arguments: { x: 1 } });
    const viaSearch = await call(alice, 'call_tool', { name: 'echo', arguments: { x: 1 } });
    expect(direct).toMatch(/^\{"name":"echo","arguments":\{"x":1\}\} #/);
    expect(viaSearch).toMatch(/^\{"x":1\} #/);
  });
});

describe('probe: canonical JSON keys collide only for equal arguments', () => {
  it('in memory (structured clones): key order shares, other types and values do not', async () => {
    const server = serverWith(new ResultCache());
    const client = await clientOf(server);
    const echo = (args: Record<string, unknown>) => call(client, 'echo', args);
    // Equal arguments in another key order: one run.
    const first = await echo({ a: 1, b: { c: [1, { d: 2, e: 3 }] } });
    expect(await echo({ b: { c: [1, { e: 3, d: 2 }] }, a: 1 })).toBe(first);
    expect(await echo({ a: 1.0, b: { c: [1, { d: 2, e: 3 }] } })).toBe(first);
    expect(calls.echo).toBe(1);
    // Each of these the tool sees differently from the others: each runs.
    const distinct: Array<Record<string, unknown>> = [
      { x: [1, 2] },
      { x: { 0: 1, 1: 2 } },
      { x: 1 },
      { x: '1' },
      { x: 0 },
      { x: -0 },
      { x: null },
      { x: Infinity },
      { x: -Infinity },
      { x: 'é' }, // NFC
      { x: 'é' }, // NFD
      { x: new Date(1) },
      { x: new Date(2) },
      { x: new Map([['a', 1]]) },
      { x: new Map([['a', 2]]) },
    ];
    const answers: string[] = [];
    for (const args of distinct) answers.push(await echo(args));
    const runs = answers.map((answer) => answer.replace(/ #\d+$/, ''));
    // No call was served another call's result: every answer describes its own arguments.
    for (let i = 0; i < distinct.length; i++) expect(runs[i]).toBe(describeRaw(distinct[i]));
  });

  it('over HTTP: -0 and 0, 1e400 (Infinity) and null, "__proto__" and no key are different calls', async () => {
    const server = serverWith(new ResultCache());
    const url = await listen(server);
    const pairs: Array<[string, string]> = [
      ['{"x":0}', '{"x":-0}'],
      ['{"x":null}', '{"x":1e400}'],
      ['{"x":null}', '{"x":-1e400}'],
      ['{}', '{"__proto__":{"x":1}}'],
      ['{"a":{}}', '{"a":{"__proto__":{}}}'],
    ];
    for (const [one, other] of pairs) {
      const a = await callOverHttp(url, 'echo', one);
      const b = await callOverHttp(url, 'echo', other);
      expect(b).not.toBe(a);
      expect(b.replace(/ #\d+$/, '')).toBe(describeRaw(JSON.parse(other)));
    }
  });

  it('arguments nested too deep for a key: the server answers, nothing is cached, and it goes on serving', async () => {
    const server = serverWith(new ResultCache());
    const url = await listen(server);
    const deep = `{"x":${'['.repeat(200_000)}${']'.repeat(200_000)}}`;
    const response = await postRaw(url, 'tools/call', `{"name":"echo","arguments":${deep},${META}}`, { 'mcp-name': 'echo' });
    expect([200, 400, 413]).toContain(response.status);
    expect(await callOverHttp(url, 'echo', '{"ok":true}')).toBe('{"ok":true} #' + String(calls.echo));
  });
});

describe('probe: nothing poisons an entry', () => {
  it('a run cut by a time limit outside the cache is not kept, though the handler finishes later', async () => {
    const cache = new ResultCache();
    const server = new McpServer({ name: 'probe', version: '1.0.0', providers: [Items], onError: () => undefined });
    cleanups.push(() => server.close());
    server.plugin(timeouts, { tools: { late: 20 } }).plugin(cache);
    const client = await clientOf(server);
    const cut = await client.callTool('late');
    expect(cut.isError).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 150));
    // The late result was not stored: the next call runs again (and is cut again).
    await client.callTool('late');
    expect(calls.late).toBe(2);
  });

  it('a run cut by a time limit inside the cache is a tool error, not kept', async () => {
    const server = serverWith(new ResultCache());
    server.plugin(timeouts, { tools: { late: 20 } });
    const client = await clientOf(server);
    expect((await client.callTool('late')).isError).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect((await client.callTool('late')).isError).toBe(true);
    expect(calls.late).toBe(2);
  });

  it('a miss in flight when the item is invalidated is not stored, and later calls do not join it', async () => {
    const cache = new ResultCache();
    const server = serverWith(cache);
    const client = await clientOf(server);
    const first = call(client, 'slow');
    await new Promise((resolve) => setTimeout(resolve, 20));
    await cache.invalidateTool('slow');
    const second = call(client, 'slow');
    await new Promise((resolve) => setTimeout(resolve, 20));
    open();
    expect(await first).toBe('slow #1');
    expect(await second).toBe('slow #2');
    // The second (after the invalidation) was kept; the first was not.
    expect(await call(client, 'slow')).toBe('slow #2');
    expect(calls.slow).toBe(2);
  });
});

describe('probe: hints and resources', () => {
  it('a private resource read says cacheScope "private" on a miss and on a hit (2026-07-28)', async () => {
    const server = serverWith(new ResultCache());
    const client = await clientOf(server, { protocolVersion: '2026-07-28', principal: principal('alice', 'https://a.example') });
    const miss = (await client.readResource('me://profile')) as unknown as Record<string, unknown>;
    const hit = (await client.readResource('me://profile')) as unknown as Record<string, unknown>;
    expect([miss.cacheScope, hit.cacheScope]).toEqual(['private', 'private']);
    expect(hit.contents).toEqual(miss.contents);
    const bob = await clientOf(server, { protocolVersion: '2026-07-28', principal: principal('bob', 'https://a.example') });
    const bobs = (await bob.readResource('me://profile')) as unknown as { contents: Array<{ text: string }>; cacheScope: string };
    expect(bobs.contents[0].text).toBe('profile of bob #2');
    expect(bobs.cacheScope).toBe('private');
  });

  it('a template read is cached per uri: another uri of the template is never served it', async () => {
    const server = serverWith(new ResultCache());
    const client = await clientOf(server);
    const read = async (uri: string) => ((await client.readResource(uri)).contents[0] as { text: string }).text;
    expect(await read('docs://pages/1')).toBe('page 1 #1');
    expect(await read('docs://pages/2')).toBe('page 2 #2');
    expect(await read('docs://pages/1')).toBe('page 1 #1');
    // Another spelling of the uri is another entry, dropped by its own update only.
    const encoded = await read('docs://pages/%31');
    expect(encoded).not.toBe('page 1 #1');
    expect(encoded).toMatch(/ #3$/);
  });
});

describe('probe: memory stays bounded', () => {
  it('one result larger than maxBytes is answered, not kept; many small ones never exceed maxBytes', async () => {
    const store = new MemoryResultCache({ maxBytes: 64 * 1024, maxEntries: 10_000 });
    const server = serverWith(new ResultCache({ store }));
    const client = await clientOf(server);
    // Arguments of 100 KB make a key (and an answer) over the bound.
    const big = 'x'.repeat(100_000);
    const answered = await call(client, 'echo', { big });
    expect(answered.length).toBeGreaterThan(100_000);
    expect(store.size).toBe(0);
    for (let i = 0; i < 300; i++) await call(client, 'echo', { i, pad: 'y'.repeat(200) });
    expect(store.totalBytes).toBeLessThanOrEqual(64 * 1024);
    expect(store.size).toBeLessThan(300);
  });
});

describe('probe: RedisResultCache', () => {
  let redis: RedisServer;
  const clients: Redis[] = [];
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.quit()));
    await redis.stop();
  });
  const client = () => {
    const c = new Redis(redis.url);
    clients.push(c);
    return c;
  };

  it('names long keys by their digest (bounded key names), and never confuses two keys or a key with a digest', async () => {
    const c = client();
    const store = new RedisResultCache(c, { keyPrefix: 'probe1:' });
    const long = 'k'.repeat(100_000);
    await store.set('tool:t', `${long}a`, 'A', 60_000);
    await store.set('tool:t', `${long}b`, 'B', 60_000);
    expect((await store.get('tool:t', `${long}a`))?.value).toBe('A');
    expect((await store.get('tool:t', `${long}b`))?.value).toBe('B');
    const keys = await c.keys('probe1:*');
    expect(Math.max(...keys.map((k) => k.length))).toBeLessThan(200);
    // A short key that looks like a digest is a key of its own.
    const names = keys.filter((k) => k.includes('#')).map((k) => k.slice(k.lastIndexOf(':') + 1));
    await store.set('tool:t', names[0], 'C', 60_000);
    expect((await store.get('tool:t', `${long}a`))?.value).toBe('A');
    expect((await store.get('tool:t', names[0]))?.value).toBe('C');
  });

  it('keeps no value over maxValueBytes, counting UTF-8 bytes; served as usual by the cache', async () => {
    const c = client();
    const store = new RedisResultCache(c, { keyPrefix: 'probe2:', maxValueBytes: 1_000 });
    await store.set('tool:t', 'k', '€'.repeat(400), 60_000); // 1 200 bytes, 400 characters
    expect(await store.get('tool:t', 'k')).toBeUndefined();
    const server = serverWith(new ResultCache({ store }));
    const local = await clientOf(server);
    const text = await call(local, 'echo', { big: 'z'.repeat(2_000) });
    expect(text).toContain('zzz');
    expect(await call(local, 'echo', { big: 'z'.repeat(2_000) })).not.toBe(text);
  });

  it('keeps private entries per principal on a shared prefix, across two servers (replicas)', async () => {
    const one = serverWith(new ResultCache({ store: new RedisResultCache(client(), { keyPrefix: 'probe3:' }) }));
    const two = serverWith(new ResultCache({ store: new RedisResultCache(client(), { keyPrefix: 'probe3:' }) }));
    const alice = await clientOf(one, { principal: principal('alice', 'https://a.example') });
    const bob = await clientOf(two, { principal: principal('bob', 'https://a.example') });
    const aliceOnTwo = await clientOf(two, { principal: principal('alice', 'https://a.example') });
    expect(await call(alice, 'whoami')).toBe('https://a.example|alice| #1');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await call(bob, 'whoami')).toBe('https://a.example|bob| #2');
    expect(await call(aliceOnTwo, 'whoami')).toBe('https://a.example|alice| #1');
  });
});

// Keeps the options type in use for the type-check of the tests.
export type _Options = ResultCacheOptions;
