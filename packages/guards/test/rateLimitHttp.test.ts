import 'reflect-metadata';
import { AuthenticationService, Context, McpServer, metadataStore, Public, Tool } from '@typemcp/core';
import type { Plugin } from '@typemcp/core';
import { rateLimit } from '@typemcp/guards';
import type { RateLimitOptions } from '@typemcp/guards';

/**
 * The rateLimit plugin over real HTTP: 429 with Retry-After for a request answered on its own
 * in both eras, the per-address stage before authentication, and trusted proxies.
 */
function declareProviders() {
  class Who {
    @Tool({ description: 'Says who called' })
    @Public()
    whoami(ctx: Context): string {
      return ctx.principal?.subject ?? 'nobody';
    }
  }
  return { Who };
}

const VERSION = '2026-07-28';
const ACCEPT = 'application/json, text/event-stream';

/** Bearer tokens are the subjects' names; each time the authentication runs is counted. */
function countingAuth(calls: { count: number }, allowAnonymous = false): Plugin {
  return {
    name: 'counting-auth',
    register(host) {
      host.provide(AuthenticationService, {
        authenticate: (req) => {
          calls.count++;
          const token = /^Bearer (\w+)$/.exec(req.headers.get('authorization') ?? '')?.[1];
          return token === undefined ? undefined : { subject: token, scopes: [], claims: {} };
        },
        challenge: () => 'Bearer realm="test"',
        ...(allowAnonymous ? { allowAnonymous: true } : {}),
      });
    },
  };
}

let server: McpServer | undefined;
let url: string;
let reported: string[];

async function start(options: RateLimitOptions, auth?: Plugin): Promise<void> {
  metadataStore.clear();
  const { Who } = declareProviders();
  reported = [];
  server = new McpServer({ name: 'limited', version: '1.0.0', providers: [Who], onError: (what) => reported.push(what) });
  if (auth) server.plugin(auth);
  server.plugin(rateLimit, options);
  ({ url } = await server.listen({ transport: 'http', host: '127.0.0.1', port: 0, handleSignals: false }));
}

afterEach(async () => {
  await server?.close();
  server = undefined;
});

const modernCall = (id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'whoami', arguments: {}, _meta: { 'io.modelcontextprotocol/protocolVersion': VERSION, 'io.modelcontextprotocol/clientCapabilities': {} } },
});
const modernHeaders = (extra: Record<string, string> = {}) => ({ 'mcp-protocol-version': VERSION, 'mcp-method': 'tools/call', 'mcp-name': 'whoami', ...extra });

async function post(body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: ACCEPT, ...headers }, body: JSON.stringify(body) });
  const text = await response.text();
  const event = text.split('\n').find((line) => line.startsWith('data: '));
  const json = text.startsWith('{') ? JSON.parse(text) : event === undefined ? undefined : JSON.parse(event.slice(6));
  return { status: response.status, headers: response.headers, json };
}

describe('a rate-limited request over HTTP', () => {
  it('is answered 429 with Retry-After in whole seconds (2026-07-28, a request on its own)', async () => {
    await start({ tools: { whoami: { limit: 2, windowMs: 1500 } } });
    for (let id = 1; id <= 2; id++) {
      const allowed = await post(modernCall(id), modernHeaders());
      expect(allowed.status).toBe(200);
      expect(allowed.json.result.content[0].text).toBe('nobody');
    }
    const refused = await post(modernCall(3), modernHeaders());
    expect(refused.status).toBe(429);
    // 1500 ms at most: rounded up, 2 s.
    expect(refused.headers.get('retry-after')).toBe('2');
    expect(refused.headers.get('ratelimit-limit')).toBeNull();
    expect(refused.json).toEqual({
      jsonrpc: '2.0',
      id: 3,
      error: { code: -32023, message: expect.stringMatching(/^Rate limit: tool "whoami" allows 2 calls per 1500 ms per caller; retry in 2 s$/), data: { retryAfterMs: expect.any(Number) } },
    });
    expect(refused.json.error.data.retryAfterMs).toBeGreaterThan(1000);
    expect(refused.json.error.data.retryAfterMs).toBeLessThanOrEqual(1500);
  });

  it('is answered 429 with Retry-After in a handshake session, with RateLimit-* headers when quota is on', async () => {
    await start({ tools: { whoami: { limit: 1, windowMs: 60_000 } }, quota: true });
    const opened = await post({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
    expect(opened.status).toBe(200);
    const session = opened.headers.get('mcp-session-id')!;
    const inSession = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
    await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, inSession);
    const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'whoami', arguments: {} } });
    expect((await post(call(1), inSession)).json.result.content[0].text).toBe('nobody');
    const refused = await post(call(2), inSession);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(59);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(refused.headers.get('ratelimit-limit')).toBe('1');
    expect(refused.headers.get('ratelimit-remaining')).toBe('0');
    expect(refused.json).toMatchObject({ jsonrpc: '2.0', id: 2, error: { code: -32023, data: { limit: 1, remaining: 0 } } });
  });

  it('counts anonymous HTTP callers by address, and principals each apart', async () => {
    await start({ tools: { whoami: { limit: 1, windowMs: 60_000 } } }, countingAuth({ count: 0 }, true));
    expect((await post(modernCall(1), modernHeaders())).status).toBe(200);
    expect((await post(modernCall(2), modernHeaders())).status).toBe(429);
    const ann = await post(modernCall(3), modernHeaders({ authorization: 'Bearer ann' }));
    expect(ann.json.result.content[0].text).toBe('ann');
    expect((await post(modernCall(4), modernHeaders({ authorization: 'Bearer ann' }))).status).toBe(429);
    expect((await post(modernCall(5), modernHeaders({ authorization: 'Bearer bob' }))).status).toBe(200);
  });
});

describe('perAddress over HTTP', () => {
  it('refuses a flood from one address before its authentication runs', async () => {
    const calls = { count: 0 };
    await start({ perAddress: { limit: 3, windowMs: 60_000 } }, countingAuth(calls));
    const statuses = [];
    for (let id = 1; id <= 8; id++) statuses.push((await post(modernCall(id), modernHeaders())).status);
    expect(statuses).toEqual([401, 401, 401, 429, 429, 429, 429, 429]);
    // The refused requests never reached the authentication.
    expect(calls.count).toBe(3);
    const refused = await post(modernCall(9), modernHeaders({ authorization: 'Bearer ann' }));
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(59);
    expect(refused.json.error).toEqual({ code: -32023, message: expect.stringMatching(/^Rate limit: this address may send 3 requests per 60 s; retry in \d+ s$/), data: { retryAfterMs: expect.any(Number) } });
    expect(calls.count).toBe(3);
  });

  it('counts every request to the endpoint, GET and DELETE too', async () => {
    await start({ perAddress: { limit: 2, windowMs: 60_000 } });
    expect((await fetch(url, { method: 'GET', headers: { accept: 'text/event-stream' } })).status).not.toBe(429);
    expect((await fetch(url, { method: 'DELETE' })).status).not.toBe(429);
    expect((await post(modernCall(1), modernHeaders())).status).toBe(429);
  });

  it('reads X-Forwarded-For from a trusted proxy: each client behind it counted apart', async () => {
    await start({ perAddress: { limit: 2, windowMs: 60_000 }, trustProxies: ['loopback'] });
    const from = (client: string) => post(modernCall(1), modernHeaders({ 'x-forwarded-for': client }));
    expect((await from('203.0.113.1')).status).toBe(200);
    expect((await from('203.0.113.1')).status).toBe(200);
    expect((await from('203.0.113.1')).status).toBe(429);
    expect((await from('203.0.113.2')).status).toBe(200);
    // The same client spelled as an IPv4-mapped IPv6 address is the same client.
    expect((await from('::ffff:203.0.113.2')).status).toBe(200);
    expect((await from('203.0.113.2')).status).toBe(429);
  });

  it('ignores X-Forwarded-For from a peer it does not trust: a spoofed header does not dodge the limit', async () => {
    await start({ perAddress: { limit: 2, windowMs: 60_000 }, trustProxies: ['10.0.0.0/8'] });
    const statuses = [];
    for (let i = 1; i <= 4; i++) statuses.push((await post(modernCall(i), modernHeaders({ 'x-forwarded-for': `198.51.100.${i}` }))).status);
    expect(statuses).toEqual([200, 200, 429, 429]);
  });

  it('fails closed with 503 when asked and the store fails, and open by default', async () => {
    const broken = { take: () => Promise.reject(new Error('store down')) };
    await start({ perAddress: { limit: 1, windowMs: 60_000 }, store: broken, onStoreError: 'refuse' });
    const refused = await post(modernCall(1), modernHeaders());
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.json.error.message).toMatch(/rate limits cannot be checked now/);
    expect((await post(modernCall(2), modernHeaders())).status).toBe(503);
    expect(reported).toEqual(['plugin "guards:rate-limit": the rate limit store failed; until it answers again, requests are refused (onStoreError: "refuse")']);
    await server!.close();

    await start({ perAddress: { limit: 1, windowMs: 60_000 }, store: broken });
    for (let id = 1; id <= 3; id++) expect((await post(modernCall(id), modernHeaders())).status).toBe(200);
    expect(reported).toHaveLength(1);
  });
});
