import 'reflect-metadata';
import http from 'node:http';
import { IsString } from 'class-validator';
import { Context, McpServer, metadataStore, Prompt, Public, Resource, Tool } from '@typemcp/core';
import type { Plugin, Principal } from '@typemcp/core';
import { createTestClient, McpRequestError } from '@typemcp/testing';
import type { CallToolResult, TestClient } from '@typemcp/testing';
import { concurrencyLimit, ConcurrencyLimit, MaxResultSize, MemoryRateLimitStore, RateLimit, rateLimit, resultSizeLimit, Timeout, timeouts } from '@typemcp/guards';
import type { RateDecision, RateLimitOptions, RateLimitStore, RateRule } from '@typemcp/guards';
import { RedisRateLimitStore } from '@typemcp/redis';
import { Redis } from 'ioredis';
import { startRedis } from '../../../test-support/redisServer';
import type { RedisServer } from '../../../test-support/redisServer';

/**
 * Attacks on the rate limits, the callers they count, the per-address stage, the concurrency
 * limit, the timeouts and the result size limit. Each test asserts the safe behaviour: it fails
 * when a guard can be dodged, made to throw, made to grow without bound, or made to answer
 * something invalid.
 */

let started: string[];
let holds: Array<() => void>;
const hold = (ctx: Context) =>
  new Promise<void>((resolve) => {
    started.push(ctx.principal?.subject ?? 'anonymous');
    holds.push(resolve);
  });

class BigInput {
  @IsString()
  kind!: string;
}

function declareProviders() {
  class Target {
    @Tool({ description: 'Says who called' })
    @Public()
    whoami(ctx: Context): string {
      return ctx.principal?.subject ?? 'nobody';
    }

    @Tool({ description: 'Limited by its decorator' })
    @RateLimit({ limit: 2, windowMs: 60_000 })
    limited(): string {
      return 'ok';
    }

    @Tool({ description: 'Held until the test lets it go' })
    @ConcurrencyLimit({ max: 1, perCaller: 1, queue: 4 })
    async held(ctx: Context): Promise<string> {
      await hold(ctx);
      return 'held';
    }

    @Tool({ description: 'Throws synchronously' })
    @ConcurrencyLimit({ max: 1 })
    throwsAtOnce(): string {
      throw new Error('boom');
    }

    @Tool({ description: 'Ignores its signal' })
    @ConcurrencyLimit({ max: 1 })
    @Timeout(30)
    async deaf(): Promise<string> {
      started.push('deaf');
      await new Promise((resolve) => setTimeout(resolve, 150));
      return 'late';
    }

    @Tool({ description: 'A large result' })
    @MaxResultSize(200, { truncate: true })
    big(input: BigInput): unknown {
      if (input.kind === 'surrogates') return { content: [{ type: 'text', text: '😀'.repeat(200) }] };
      if (input.kind === 'lone') return { content: [{ type: 'text', text: '\ud83d'.repeat(300) }] };
      if (input.kind === 'structured') return { content: [{ type: 'text', text: 'x' }], structuredContent: { data: 'y'.repeat(1000) } };
      if (input.kind === 'string') return 'z'.repeat(5000);
      if (input.kind === 'control') return { content: [{ type: 'text', text: '\u0001'.repeat(500) }] };
      if (input.kind === 'image') return { content: [{ type: 'image', data: 'A'.repeat(4000), mimeType: 'image/png' }] };
      return { content: [{ type: 'text', text: 'é'.repeat(1000) }] };
    }

    @Tool({ description: 'A result that looks small but writes large JSON' })
    @MaxResultSize(200)
    shifty(): unknown {
      return { content: [{ type: 'text', text: 'small' }], structuredContent: { toJSON: () => ({ data: 'w'.repeat(5000) }) } };
    }

    @Resource({ uri: 'blob://{id}', mimeType: 'application/octet-stream' })
    @MaxResultSize(300)
    blob(vars: { id: string }): unknown {
      return { contents: [{ uri: `blob://${vars.id}`, blob: Buffer.alloc(1000, 7).toString('base64'), mimeType: 'application/octet-stream' }] };
    }

    @Prompt({ description: 'A long prompt' })
    @MaxResultSize(300)
    long(): unknown {
      return { messages: [{ role: 'user', content: { type: 'text', text: 'p'.repeat(1000) } }] };
    }
  }
  return { Target };
}

let Target: ReturnType<typeof declareProviders>['Target'];
const clients: TestClient[] = [];
const servers: McpServer[] = [];
let reported: string[];

beforeEach(() => {
  metadataStore.clear();
  ({ Target } = declareProviders());
  started = [];
  holds = [];
  reported = [];
});
afterEach(async () => {
  holds.forEach((release) => release());
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

function serverWith(configure: (server: McpServer) => void, extra: Partial<ConstructorParameters<typeof McpServer>[0]> = {}): McpServer {
  const server = new McpServer({ name: 'probe', version: '1.0.0', providers: [Target], onError: (what) => reported.push(what), ...extra });
  configure(server);
  servers.push(server);
  return server;
}

async function clientOf(server: McpServer, principal?: Principal): Promise<TestClient> {
  const client = await createTestClient(server, principal === undefined ? {} : { principal });
  clients.push(client);
  return client;
}

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(condition()).toBe(true);
}

const text = (result: CallToolResult) => (result.content[0] as { text: string }).text;

async function codeOf(promise: Promise<unknown>): Promise<number | 'ok'> {
  try {
    await promise;
    return 'ok';
  } catch (error) {
    if (error instanceof McpRequestError) return error.code;
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------
// Over real HTTP: who a request is counted against.

const VERSION = '2026-07-28';
let url = '';

async function listening(options: RateLimitOptions): Promise<McpServer> {
  const server = serverWith((s) => s.plugin(rateLimit, options));
  ({ url } = await server.listen({ transport: 'http', host: '127.0.0.1', port: 0, handleSignals: false }));
  return server;
}

const modernCall = (id: number, name = 'whoami') => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: {}, _meta: { 'io.modelcontextprotocol/protocolVersion': VERSION, 'io.modelcontextprotocol/clientCapabilities': {} } },
});

/** A POST through node:http, so a header may be sent twice (as a proxy appending its own line does). */
function post(body: unknown, headers: Record<string, string | string[]> = {}, name = 'whoami'): Promise<{ status: number; headers: http.IncomingHttpHeaders; json: any }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': VERSION, 'mcp-method': 'tools/call', 'mcp-name': name, ...headers },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => {
          const event = text.split('\n').find((line) => line.startsWith('data: '));
          const json = text.startsWith('{') || text.startsWith('[') ? JSON.parse(text) : event === undefined ? undefined : JSON.parse(event.slice(6));
          resolve({ status: response.statusCode!, headers: response.headers, json });
        });
      },
    );
    request.on('error', reject);
    request.end(JSON.stringify(body));
  });
}

async function statuses(count: number, headersOf: (i: number) => Record<string, string | string[]>): Promise<number[]> {
  const seen: number[] = [];
  for (let i = 0; i < count; i++) seen.push((await post(modernCall(i + 1), headersOf(i))).status);
  return seen;
}

describe('callers over HTTP: dodging a per-caller limit', () => {
  const perCaller: RateLimitOptions = { tools: { whoami: { limit: 2, windowMs: 60_000 } } };

  it('an untrusted peer rotating X-Forwarded-For and Forwarded counts as its own address', async () => {
    await listening(perCaller);
    expect(await statuses(5, (i) => ({ 'x-forwarded-for': `198.51.100.${i}`, forwarded: `for=192.0.2.${i}` }))).toEqual([200, 200, 429, 429, 429]);
  });

  it('a peer outside trustProxies is not trusted however it spells its headers', async () => {
    await listening({ ...perCaller, trustProxies: ['10.0.0.0/8', '::ffff:10.0.0.1'] });
    expect(await statuses(4, (i) => ({ 'x-forwarded-for': `10.0.0.${i + 1}`, 'X-Forwarded-For': `10.0.0.${i + 1}` }))).toEqual([200, 200, 429, 429]);
  });

  it('behind a trusted proxy, what the client wrote to the left of the address the proxy appended is ignored', async () => {
    await listening({ ...perCaller, trustProxies: ['loopback'] });
    const junk = ['198.51.100.1', 'garbage', 'fe80::1%eth0', '[::1]', '127.0.0.1', 'unknown', '', '::FFFF:7F00:1', '010.000.000.001', '999.1.1.1'];
    expect(await statuses(6, (i) => ({ 'x-forwarded-for': `${junk[i]}, 203.0.113.7` }))).toEqual([200, 200, 429, 429, 429, 429]);
  });

  it('a client header and the proxy’s own X-Forwarded-For line (two headers) count as the proxy’s client', async () => {
    await listening({ ...perCaller, trustProxies: ['loopback'] });
    expect(await statuses(4, (i) => ({ 'x-forwarded-for': [`198.51.100.${i}`, '203.0.113.8'] }))).toEqual([200, 200, 429, 429]);
  });

  it('a proxy that keeps X-Forwarded-For only: a Forwarded header written by the client does not name the caller', async () => {
    await listening({ ...perCaller, trustProxies: ['loopback'] });
    expect(await statuses(4, (i) => ({ forwarded: `for=198.51.100.${i}`, 'x-forwarded-for': '203.0.113.9' }))).toEqual([200, 200, 429, 429]);
  });

  it('a proxy that keeps Forwarded only: an X-Forwarded-For written by the client does not name the caller', async () => {
    await listening({ ...perCaller, trustProxies: ['loopback'] });
    expect(await statuses(4, (i) => ({ forwarded: 'for=203.0.113.10', 'x-forwarded-for': `198.51.100.${i}` }))).toEqual([200, 200, 429, 429]);
  });

  it('one client address in several spellings (mapped IPv4, upper-case hex, zeros written out) counts once', async () => {
    await listening({ ...perCaller, trustProxies: ['loopback'] });
    const spellings = ['2001:db8::7', '2001:DB8::7', '2001:0db8:0000:0000:0000:0000:0000:0007', '[2001:db8::7]'];
    const forwarded = spellings.map((s) => ({ forwarded: `for="${s.startsWith('[') ? s : `[${s}]`}"` }));
    expect(await statuses(4, (i) => forwarded[i])).toEqual([200, 200, 429, 429]);
    const v4 = ['203.0.113.11', '::ffff:203.0.113.11', '::FFFF:CB00:710B'];
    expect(await statuses(3, (i) => ({ 'x-forwarded-for': v4[i] }))).toEqual([200, 200, 429]);
  });

  it('a client rotating addresses inside its own IPv6 /64 counts as one caller', async () => {
    await listening({ ...perCaller, trustProxies: ['loopback'] });
    expect(await statuses(4, (i) => ({ 'x-forwarded-for': `2001:db8:1:2::${(i + 1).toString(16)}` }))).toEqual([200, 200, 429, 429]);
    // Another /64 is another caller.
    expect(await statuses(1, () => ({ 'x-forwarded-for': '2001:db8:1:3::1' }))).toEqual([200]);
  });

  it('perAddress: a client rotating addresses inside its IPv6 /64 is one address', async () => {
    await listening({ perAddress: { limit: 2, windowMs: 60_000 }, trustProxies: ['loopback'] });
    expect(await statuses(4, (i) => ({ 'x-forwarded-for': `2001:db8:9:9:${i}::1` }))).toEqual([200, 200, 429, 429]);
  });

  it('a 2025-03-26 JSON-RPC batch of many calls counts each call', async () => {
    await listening(perCaller);
    const opened = await post({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } } }, { 'mcp-protocol-version': '2025-03-26' });
    const session = String(opened.headers['mcp-session-id']);
    const inSession = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-03-26' };
    await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, inSession);
    const batch = Array.from({ length: 20 }, (_, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } }));
    const answered = await post(batch, inSession);
    const answers = Array.isArray(answered.json) ? answered.json : [answered.json];
    expect(answers).toHaveLength(20);
    expect(answers.filter((a: any) => a.result !== undefined)).toHaveLength(2);
    expect(answers.filter((a: any) => a.error?.code === -32023)).toHaveLength(18);
  });

  it('perAddress runs before authentication and before the body is read: a refused flood never reaches them', async () => {
    let authenticated = 0;
    const auth: Plugin = {
      name: 'counting-auth',
      register(host) {
        host.httpStage({
          name: 'expensive',
          after: 'authenticate',
          handle: () => {
            authenticated++;
            return undefined;
          },
        });
      },
    };
    const server = serverWith((s) => s.plugin(auth).plugin(rateLimit, { perAddress: { limit: 1, windowMs: 60_000 } }));
    ({ url } = await server.listen({ transport: 'http', host: '127.0.0.1', port: 0, handleSignals: false }));
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => post(modernCall(i))));
    expect(results.map((r) => r.status).sort()).toEqual([200, 429, 429, 429, 429, 429]);
    expect(authenticated).toBe(1);
    // A refused request with a body that is not JSON is refused the same, before the body is parsed.
    const refused = await new Promise<number>((resolve, reject) => {
      const target = new URL(url);
      const request = http.request({ host: target.hostname, port: target.port, path: target.pathname, method: 'POST', headers: { 'content-type': 'application/json' } }, (response) => {
        response.resume();
        resolve(response.statusCode!);
      });
      request.on('error', reject);
      request.end('{not json');
    });
    expect(refused).toBe(429);
  });
});

// ---------------------------------------------------------------------------------------------
// retryAfterMs from a store that answers nonsense.

describe('retryAfterMs a store answers', () => {
  const answering = (retryAfterMs: number, remaining = 0): RateLimitStore => ({ take: () => ({ allowed: false, remaining, retryAfterMs }) });

  it.each([
    ['negative', -5_000],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['huge', 1e300],
    ['fractional', 0.25],
  ])('%s: the client gets a finite whole retryAfterMs within the window, and Retry-After in whole seconds', async (_name, retryAfterMs) => {
    await listening({ tools: { whoami: { limit: 1, windowMs: 60_000 } }, store: answering(retryAfterMs, Number.NaN), quota: true });
    const refused = await post(modernCall(1));
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toMatch(/^\d+$/);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
    const data = refused.json.error.data;
    expect(Number.isSafeInteger(data.retryAfterMs)).toBe(true);
    expect(data.retryAfterMs).toBeGreaterThanOrEqual(0);
    expect(data.retryAfterMs).toBeLessThanOrEqual(60_000);
    expect(data.remaining).toBe(0);
    expect(refused.headers['ratelimit-remaining']).toBe('0');
    expect(refused.json.error.message).toMatch(/retry in \d+ s$/);
  });
});

// ---------------------------------------------------------------------------------------------
// In memory: dodging a per-tool limit, making the limiter throw, exhausting its memory.

describe('per-tool limits: name tricks', () => {
  it('names that differ in case or unicode are other (unknown) tools: refused, and the real one keeps its count', async () => {
    const client = await clientOf(serverWith((s) => s.plugin(rateLimit, { limits: [{ limit: 100, windowMs: 60_000 }] })));
    expect(text(await client.callTool('limited'))).toBe('ok');
    expect(text(await client.callTool('limited'))).toBe('ok');
    for (const name of ['Limited', 'LIMITED', 'limited\u200b', 'limıted', 'ｌｉｍｉｔｅｄ', 'limited ', ' limited']) {
      expect(await codeOf(client.callTool(name))).not.toBe('ok');
    }
    expect(await codeOf(client.callTool('limited'))).toBe(-32023);
  });

  it('a mounted server’s tool keeps the limit its decorator declares under the namespaced name', async () => {
    const parent = serverWith((s) => s.plugin(rateLimit, {}));
    const child = new McpServer({ name: 'child', version: '1.0.0', providers: [Target] });
    servers.push(child);
    parent.mount(child, { namespace: 'ns' });
    const client = await clientOf(parent);
    expect(text(await client.callTool('ns_limited'))).toBe('ok');
    expect(text(await client.callTool('limited'))).toBe('ok');
    expect(text(await client.callTool('ns_limited'))).toBe('ok');
    expect(await codeOf(client.callTool('ns_limited'))).toBe(-32023);
  });

  it('tool search’s call_tool counts against the tool it calls', async () => {
    const server = serverWith((s) => s.plugin(rateLimit, {}), { toolSearch: {} });
    const client = await clientOf(server);
    const viaCallTool = () => client.callTool('call_tool', { name: 'limited', arguments: {} });
    expect(text(await viaCallTool())).toBe('ok');
    expect(text(await viaCallTool())).toBe('ok');
    const third = await viaCallTool().then(
      (result) => (result.isError ? 'refused' : text(result)),
      (error: unknown) => (error instanceof McpRequestError && error.code === -32023 ? 'refused' : 'threw'),
    );
    expect(third).toBe('refused');
    expect(await codeOf(client.callTool('limited'))).toBe(-32023);
  });

  it('params that are not what a tools/call names never make the limiter throw, and the server serves on', async () => {
    const client = await clientOf(serverWith((s) => s.plugin(rateLimit, { limits: [{ name: 'g', limit: 50, windowMs: 60_000, tools: ['limited'] }], tools: { whoami: { limit: 50, windowMs: 60_000 } }, resources: { 'blob://{id}': { limit: 50, windowMs: 60_000 } } })));
    const odd: Array<[string, Record<string, unknown>]> = [
      ['tools/call', { name: 42 }],
      ['tools/call', { name: { toString: 'limited' } }],
      ['tools/call', { name: ['limited'] }],
      ['tools/call', { name: null }],
      ['tools/call', { name: 'x'.repeat(100_000) }],
      ['tools/call', { name: '__proto__' }],
      ['tools/call', { name: 'constructor' }],
      ['tools/call', { name: 'hasOwnProperty' }],
      ['resources/read', { uri: 42 }],
      ['resources/read', { uri: 'blob://' + 'a'.repeat(100_000) }],
      ['resources/read', { uri: '__proto__' }],
      ['prompts/get', { name: '__proto__' }],
    ];
    for (const [method, params] of odd) {
      const code = await codeOf(client.request(method, params as never));
      expect(code === 'ok' || (typeof code === 'number' && code !== -32603)).toBe(true);
    }
    expect(reported).toEqual([]);
    expect(text(await client.callTool('whoami'))).toBe('nobody');
  });
});

describe('memory: many distinct callers and keys', () => {
  it('the memory store stays bounded by maxKeys, and a dropped key starts afresh', () => {
    let now = 0;
    const store = new MemoryRateLimitStore({ maxKeys: 100, now: () => now });
    const rule: RateRule = { limit: 1, windowMs: 60_000, algorithm: 'sliding-window' };
    for (let i = 0; i < 10_000; i++) store.take(`rl:t:x:a:198.51.${i >> 8}.${i & 255}`, rule);
    expect(store.size).toBe(100);
    now += 1;
    for (let i = 0; i < 10_000; i++) store.take(`k${i}`, { ...rule, algorithm: i % 2 === 0 ? 'token-bucket' : 'sliding-window' });
    expect(store.size).toBe(100);
  });

  it('a store with a huge limit keeps at most limit timestamps per key and answers sliding windows exactly', () => {
    let now = 0;
    const store = new MemoryRateLimitStore({ now: () => now });
    const rule: RateRule = { limit: 3, windowMs: 1000, algorithm: 'sliding-window' };
    const answers: boolean[] = [];
    for (let i = 0; i < 10; i++) answers.push(store.take('k', rule).allowed);
    expect(answers).toEqual([true, true, true, false, false, false, false, false, false, false]);
    now = 999;
    expect(store.take('k', rule).allowed).toBe(false);
    now = 1000;
    expect(store.take('k', rule).allowed).toBe(true);
  });

  it('thousands of principals with long or odd subjects are all limited apart, and their keys stay short and printable', async () => {
    const keys = new Set<string>();
    const inner = new MemoryRateLimitStore();
    const store: RateLimitStore = {
      take(key: string, rule: RateRule): RateDecision {
        keys.add(key);
        return inner.take(key, rule);
      },
    };
    const server = serverWith((s) => s.plugin(rateLimit, { tools: { whoami: { limit: 1, windowMs: 60_000 } }, store }));
    const subjects = ['a:b', 'a', 'a%3Ab', '{tag}', 'line\nbreak', 'x'.repeat(5000), '#hash', '💥', 'a"b', 'sp ace'];
    for (const subject of subjects) {
      const client = await clientOf(server, { subject, scopes: [], claims: {} });
      expect(text(await client.callTool('whoami'))).toBe(subject);
      expect(await codeOf(client.callTool('whoami'))).toBe(-32023);
    }
    expect(keys.size).toBe(subjects.length);
    for (const key of keys) {
      expect(key).toMatch(/^[\x21-\x7a\x7c\x7e]+$/);
      expect(key.length).toBeLessThanOrEqual(200);
    }
  });
});

describe('races: many concurrent requests against a limit of N', () => {
  it('in memory, 200 concurrent calls let exactly N through', async () => {
    const client = await clientOf(serverWith((s) => s.plugin(rateLimit, { tools: { whoami: { limit: 7, windowMs: 60_000 } } })));
    const codes = await Promise.all(Array.from({ length: 200 }, () => codeOf(client.callTool('whoami'))));
    expect(codes.filter((c) => c === 'ok')).toHaveLength(7);
    expect(codes.filter((c) => c === -32023)).toHaveLength(193);
  });

  it('a store that answers late (as Redis does) still lets exactly N through, and a refused request is not counted', async () => {
    const inner = new MemoryRateLimitStore();
    const store: RateLimitStore = { take: (key, rule) => new Promise((resolve) => setTimeout(() => resolve(inner.take(key, rule)), Math.random() * 5)) };
    const client = await clientOf(serverWith((s) => s.plugin(rateLimit, { limits: [{ limit: 100, windowMs: 60_000 }], tools: { whoami: { limit: 5, windowMs: 60_000 } }, store })));
    const codes = await Promise.all(Array.from({ length: 60 }, () => codeOf(client.callTool('whoami'))));
    expect(codes.filter((c) => c === 'ok')).toHaveLength(5);
  });
});

// ---------------------------------------------------------------------------------------------
// Concurrency: queue starvation, cancellation, slots leaked on errors.

describe('concurrency', () => {
  const alice: Principal = { subject: 'alice', scopes: [], claims: {} };
  const bob: Principal = { subject: 'bob', scopes: [], claims: {} };

  it('one caller cannot fill the whole queue and starve the others', async () => {
    const server = serverWith((s) => s.plugin(concurrencyLimit, {}));
    const a = await clientOf(server, alice);
    const b = await clientOf(server, bob);
    const mine = Array.from({ length: 8 }, () => codeOf(a.callTool('held')));
    await until(() => started.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const theirs = codeOf(b.callTool('held'));
    await new Promise((resolve) => setTimeout(resolve, 20));
    // Bob got a place in the queue: his call is not refused while alice's wait.
    for (let i = 0; i < 20 && holds.length > 0; i++) {
      holds.splice(0).forEach((release) => release());
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(await theirs).toBe('ok');
    const codes = await Promise.all(mine);
    expect(codes.filter((c) => c === 'ok').length).toBeGreaterThanOrEqual(1);
    expect(started).toContain('bob');
  });

  it('a queued call cancelled by its client leaves the queue: the slots and places are all there afterwards', async () => {
    const server = serverWith((s) => s.plugin(concurrencyLimit, {}));
    const a = await clientOf(server, alice);
    const first = a.callTool('held');
    await until(() => started.length === 1);
    for (let round = 0; round < 20; round++) {
      const controller = new AbortController();
      const queued = a.callTool('held', {}, { signal: controller.signal }).catch(() => 'cancelled');
      await new Promise((resolve) => setTimeout(resolve, 2));
      controller.abort();
      await queued;
    }
    holds.splice(0).forEach((release) => release());
    expect(text(await first)).toBe('held');
    const b = await clientOf(server, bob);
    const next = b.callTool('held');
    await until(() => started.length === 2);
    holds.splice(0).forEach((release) => release());
    expect(text(await next)).toBe('held');
  });

  it('a handler that throws synchronously gives its slot back every time', async () => {
    const client = await clientOf(serverWith((s) => s.plugin(concurrencyLimit, {})));
    for (let i = 0; i < 5; i++) {
      const result = await client.callTool('throwsAtOnce').catch((error: unknown) => error);
      expect(result instanceof McpRequestError ? result.code : (result as CallToolResult).isError).not.toBe(-32023);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Timeouts.

describe('timeouts', () => {
  it('a handler that ignores its signal: the client gets the timeout, the slot is free at once, the late result is dropped', async () => {
    const server = serverWith((s) => s.plugin(concurrencyLimit, {}).plugin(timeouts, {}));
    const client = await clientOf(server);
    const first = await client.callTool('deaf');
    expect(first).toMatchObject({ isError: true, content: [{ text: 'Tool "deaf" did not finish within 30 ms' }] });
    // The deaf handler still runs, but its slot was given back when its time was up.
    const second = await client.callTool('deaf');
    expect(second.isError).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(started).toEqual(['deaf', 'deaf']);
    expect(reported).toEqual([]);
  });

  it('no time limit of a call whose handler never ends keeps the process alive after the server closes', async () => {
    const limits: NodeJS.Timeout[] = [];
    const real = global.setTimeout;
    const spy = jest.spyOn(global, 'setTimeout').mockImplementation(((callback: () => void, ms?: number) => {
      const timer = real(callback, ms);
      if (ms === 2_000_000_000) limits.push(timer);
      return timer;
    }) as typeof setTimeout);
    try {
      const server = serverWith((s) => s.plugin(timeouts, { tools: { held: 2_000_000_000 } }));
      const client = await clientOf(server);
      const pending = client.callTool('held').catch(() => 'closed');
      await until(() => started.length === 1);
      await client.close();
      clients.splice(clients.indexOf(client), 1);
      await server.close();
      servers.splice(servers.indexOf(server), 1);
      await pending;
    } finally {
      spy.mockRestore();
    }
    expect(limits).toHaveLength(1);
    expect(limits[0].hasRef()).toBe(false);
    clearTimeout(limits[0]);
  });
});

// ---------------------------------------------------------------------------------------------
// Result size.

describe('result size', () => {
  const utf8 = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');

  it.each(['surrogates', 'lone', 'control', 'accents'])('truncating %s text gives valid UTF-16 within the limit', async (kind) => {
    const client = await clientOf(serverWith((s) => s.plugin(resultSizeLimit, {})));
    const result = await client.callTool('big', { kind });
    expect(utf8(result)).toBeLessThanOrEqual(200 + 40); // the wire may add its own few bytes
    const cut = text(result);
    expect(cut).toMatch(/…\[truncated: the result was \d+ bytes, the limit is 200\]$/);
    // The cut made no lone surrogate: text that had none has none, and lone ones stay whole units.
    const lone = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
    if (kind === 'lone') expect(cut.replace(/\ud83d/g, '')).toMatch(/^\n…\[truncated/);
    else expect(cut).not.toMatch(lone);
    // A pair is never split: what was a pair in the text is a pair, or absent.
    if (kind === 'surrogates') expect(cut.replace(/😀/gu, '').replace(/\n…\[truncated.*$/s, '')).toBe('');
  });

  it('a result of a bare string over its limit is limited too', async () => {
    const client = await clientOf(serverWith((s) => s.plugin(resultSizeLimit, {})));
    const result = await client.callTool('big', { kind: 'string' });
    expect(utf8(result)).toBeLessThanOrEqual(240);
  });

  it('huge structuredContent cannot be truncated: a tool error, not an invalid result', async () => {
    const client = await clientOf(serverWith((s) => s.plugin(resultSizeLimit, {})));
    const result = await client.callTool('big', { kind: 'structured' });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    expect(text(result)).toMatch(/over the limit of 200 bytes/);
  });

  it('an image over the limit is dropped whole, the marker says so', async () => {
    const client = await clientOf(serverWith((s) => s.plugin(resultSizeLimit, {})));
    const result = await client.callTool('big', { kind: 'image' });
    expect(result.content).toEqual([{ type: 'text', text: expect.stringMatching(/^…\[truncated/) }]);
  });

  it('a resource with blob content and a prompt over their limits are JSON-RPC errors', async () => {
    const client = await clientOf(serverWith((s) => s.plugin(resultSizeLimit, {})));
    await expect(client.readResource('blob://1')).rejects.toMatchObject({ code: -32603 });
    await expect(client.getPrompt('long')).rejects.toMatchObject({ code: -32603 });
  });

  it('a result whose toJSON writes large JSON is measured as written', async () => {
    const client = await clientOf(serverWith((s) => s.plugin(resultSizeLimit, {})));
    const result = await client.callTool('shifty');
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/^The result of tool "shifty" is \d+ bytes, over the limit of 200 bytes$/);
  });
});

// ---------------------------------------------------------------------------------------------
// On a real Redis: races between replicas, and keys that try to break out of their hash tag.

describe('RedisRateLimitStore', () => {
  let redisServer: RedisServer;
  const connections: Redis[] = [];
  beforeAll(async () => {
    redisServer = await startRedis();
  });
  afterAll(async () => {
    await Promise.all(connections.map((c) => c.quit()));
    await redisServer.stop();
  });
  const connect = () => {
    const connection = new Redis(redisServer.url);
    connections.push(connection);
    return connection;
  };

  it('200 concurrent takes from two replicas let exactly N through, in both algorithms', async () => {
    const [one, two] = [new RedisRateLimitStore(connect()), new RedisRateLimitStore(connect())];
    for (const algorithm of ['sliding-window', 'token-bucket'] as const) {
      const rule: RateRule = { limit: 7, windowMs: 60_000, algorithm };
      const decisions = await Promise.all(Array.from({ length: 200 }, (_, i) => (i % 2 === 0 ? one : two).take(`race:${algorithm}`, rule)));
      expect(decisions.filter((d) => d.allowed)).toHaveLength(7);
      for (const d of decisions.filter((d) => !d.allowed)) expect(d.retryAfterMs).toBeGreaterThan(0);
    }
    one.close();
    two.close();
  });

  it('keys with braces, colons, percent signs and newlines never share a count or leave their hash tag', async () => {
    const connection = connect();
    const store = new RedisRateLimitStore(connection, { keyPrefix: 'probe:' });
    const rule: RateRule = { limit: 1, windowMs: 60_000, algorithm: 'sliding-window' };
    const names = ['a}b', 'a%7Db', 'a%257Db', '{a}', 'a}:sliding-window:1:60000', 'a', 'a\nb', 'a\r\nb', 'a}{b}'];
    for (const name of names) expect((await store.take(name, rule)).allowed).toBe(true);
    for (const name of names) expect((await store.take(name, rule)).allowed).toBe(false);
    const keys = await connection.keys('probe:*');
    expect(keys).toHaveLength(names.length);
    for (const key of keys) {
      // One hash tag, closed where the store closed it.
      expect(key.indexOf('}')).toBe(key.lastIndexOf('}:sliding-window:1:60000'));
    }
    store.close();
  });

  it('through the plugin, principals with separators and braces are counted apart on Redis', async () => {
    const store = new RedisRateLimitStore(connect(), { keyPrefix: 'plugin:' });
    const server = serverWith((s) => s.plugin(rateLimit, { tools: { whoami: { limit: 1, windowMs: 60_000 } }, store }));
    for (const subject of ['x}', 'x', '{x}', 'x\n', 'x:y']) {
      const client = await clientOf(server, { subject, scopes: [], claims: {} });
      expect(text(await client.callTool('whoami'))).toBe(subject);
      expect(await codeOf(client.callTool('whoami'))).toBe(-32023);
    }
    store.close();
  });
});
