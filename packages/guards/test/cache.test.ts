import 'reflect-metadata';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { IsInt, IsOptional, IsString } from 'class-validator';
import { Context, DefinitionError, Guard, McpServer, metadataStore, Prompt, Resource, Scopes, Tool, ToolError } from '@typemcp/core';
import { auth } from '@typemcp/auth';
import { TestIssuer } from '@typemcp/auth/testing';
import { createTestClient } from '@typemcp/testing';
import type { TestClient } from '@typemcp/testing';
import { CacheResult, MemoryResultCache, ResultCache } from '@typemcp/guards';
import type { ResultCacheOptions, ResultCacheStore } from '@typemcp/guards';

/** How many times each item ran. */
let calls: Record<string, number>;
const ran = (name: string) => (calls[name] = (calls[name] ?? 0) + 1);
/** What `slow` waits for. */
let gate: Promise<void>;
/** `flaky-doc` fails while this is set. */
let failing: boolean;
/** What the guard of `guarded` answers. */
let guardAllows: boolean;

function declareProviders() {
  class SearchInput {
    @IsString() q!: string;
    @IsOptional() @IsInt() page?: number;
  }

  class Items {
    @Tool({ description: 'Searches' })
    @CacheResult({ ttlMs: 10_000 })
    search(input: SearchInput): string {
      return `${input.q} p${input.page ?? 1} #${ran('search')}`;
    }

    @Tool({ description: 'Read-only, but not opted in', annotations: { readOnlyHint: true } })
    lookup(): string {
      return `lookup #${ran('lookup')}`;
    }

    @Tool({ description: 'Cached by the options only' })
    configured(): string {
      return `configured #${ran('configured')}`;
    }

    @Tool({ description: 'Always a tool error' })
    @CacheResult({ ttlMs: 10_000 })
    broken(): string {
      throw new ToolError(`broken #${ran('broken')}`);
    }

    @Tool({ description: 'Who asks (private by default)' })
    @CacheResult({ ttlMs: 10_000 })
    whoami(ctx: Context): string {
      return `${ctx.principal?.subject ?? 'nobody'} #${ran('whoami')}`;
    }

    @Tool({ description: 'The same for everyone' })
    @CacheResult({ ttlMs: 10_000, scope: 'public' })
    weather(): string {
      return `sunny #${ran('weather')}`;
    }

    @Tool({ description: 'Waits for the gate' })
    @CacheResult({ ttlMs: 10_000 })
    async slow(): Promise<string> {
      const n = ran('slow');
      await gate;
      return `slow #${n}`;
    }

    @Tool({ description: 'Behind a guard' })
    @CacheResult({ ttlMs: 10_000, scope: 'public' })
    @Guard(() => guardAllows)
    guarded(): string {
      return `guarded #${ran('guarded')}`;
    }

    @Tool({ description: 'Needs a scope' })
    @CacheResult({ ttlMs: 10_000, scope: 'public' })
    @Scopes('notes:read')
    notes(): string {
      return `notes #${ran('notes')}`;
    }

    @Resource({ uri: 'docs://readme', mimeType: 'text/plain' })
    @CacheResult({ ttlMs: 10_000, scope: 'public' })
    readme(): string {
      return `readme #${ran('readme')}`;
    }

    @Resource({ uri: 'docs://pages/{id}', mimeType: 'text/plain' })
    @CacheResult({ ttlMs: 5_000 })
    page(vars: { id: string }): string {
      return `page ${vars.id} #${ran(`page ${vars.id}`)}`;
    }

    @Resource({ uri: 'docs://flaky', mimeType: 'text/plain' })
    @CacheResult({ ttlMs: 10_000 })
    flaky(): string {
      ran('flaky');
      if (failing) throw new Error('not now');
      return `flaky #${calls.flaky}`;
    }

    @Prompt({ description: 'Greets' })
    @CacheResult({ ttlMs: 10_000 })
    greet(): string {
      return `hello #${ran('greet')}`;
    }
  }
  return { Items };
}

/** A clock the test moves. */
function fakeClock(start = 1_000_000) {
  const clock = { t: start, now: () => clock.t };
  return clock;
}

let Items: ReturnType<typeof declareProviders>['Items'];
let clock: ReturnType<typeof fakeClock>;
const cleanups: Array<() => Promise<unknown> | void> = [];

beforeEach(() => {
  metadataStore.clear();
  ({ Items } = declareProviders());
  calls = {};
  gate = Promise.resolve();
  failing = false;
  guardAllows = true;
  clock = fakeClock();
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function serverWith(cache: ResultCache, onError?: (what: string, error: unknown) => void): McpServer {
  // Quiet: the failures the tests cause are theirs to check.
  const server = new McpServer({ name: 'cached', version: '1.0.0', providers: [Items], onError: onError ?? (() => undefined) }).plugin(cache);
  cleanups.push(() => server.close());
  return server;
}

async function connect(options: ResultCacheOptions = {}, clientOptions: Parameters<typeof createTestClient>[1] = {}) {
  const cache = new ResultCache({ store: new MemoryResultCache({ now: clock.now }), ...options });
  const server = serverWith(cache);
  const client = await createTestClient(server, clientOptions);
  cleanups.push(() => client.close());
  return { cache, server, client };
}

const textOf = (result: { content?: unknown }) => (result.content as Array<{ text: string }>)[0].text;
const call = async (client: TestClient, name: string, args?: Record<string, unknown>) => textOf(await client.callTool(name, args as never));
const read = async (client: TestClient, uri: string) => {
  const result = await client.readResource(uri);
  return { text: (result.contents[0] as { text: string }).text, ttlMs: (result as Record<string, unknown>).ttlMs, cacheScope: (result as Record<string, unknown>).cacheScope };
};

describe('ResultCache: what is cached and for how long', () => {
  it('runs a tool once per ttlMs for the same arguments, again once it expired', async () => {
    const { client } = await connect();
    expect(await call(client, 'search', { q: 'a' })).toBe('a p1 #1');
    expect(await call(client, 'search', { q: 'a' })).toBe('a p1 #1');
    clock.t += 9_999;
    expect(await call(client, 'search', { q: 'a' })).toBe('a p1 #1');
    clock.t += 1;
    expect(await call(client, 'search', { q: 'a' })).toBe('a p1 #2');
    expect(await call(client, 'search', { q: 'a' })).toBe('a p1 #2');
    expect(calls.search).toBe(2);
  });

  it('keys by the canonical arguments: other arguments miss, the same in another key order hit, the request _meta is no part of it', async () => {
    const { client } = await connect();
    expect(await call(client, 'search', { q: 'a', page: 2 })).toBe('a p2 #1');
    expect(await call(client, 'search', { page: 2, q: 'a' })).toBe('a p2 #1');
    expect(await call(client, 'search', { q: 'b', page: 2 })).toBe('b p2 #2');
    expect(await call(client, 'search', { q: 'a' })).toBe('a p1 #3');
    const withMeta = await client.request('tools/call', { name: 'search', arguments: { q: 'a', page: 2 }, _meta: { progressToken: 'p-1' } });
    expect(textOf(withMeta)).toBe('a p2 #1');
    expect(calls.search).toBe(3);
  });

  it('caches only what is opted in: a readOnlyHint is not enough; the options opt an item in by name', async () => {
    const { client } = await connect({ tools: { configured: { ttlMs: 1_000 } } });
    expect([await call(client, 'lookup'), await call(client, 'lookup')]).toEqual(['lookup #1', 'lookup #2']);
    expect([await call(client, 'configured'), await call(client, 'configured')]).toEqual(['configured #1', 'configured #1']);
    clock.t += 1_000;
    expect(await call(client, 'configured')).toBe('configured #2');
  });

  it('never caches a tool error result, nor a JSON-RPC error', async () => {
    const { client } = await connect();
    const first = await client.callTool('broken');
    expect(first).toMatchObject({ isError: true });
    expect(textOf(first)).toContain('broken #1');
    expect(textOf(await client.callTool('broken'))).toContain('broken #2');
    failing = true;
    await expect(client.readResource('docs://flaky')).rejects.toThrow();
    failing = false;
    expect((await read(client, 'docs://flaky')).text).toBe('flaky #2');
    expect((await read(client, 'docs://flaky')).text).toBe('flaky #2');
    expect(calls.flaky).toBe(2);
  });

  it('never caches a task handle or an unfinished result (task, resultType other than complete)', async () => {
    const cache = new ResultCache({ store: new MemoryResultCache({ now: clock.now }) });
    const server = serverWith(cache);
    let answered = 0;
    // Inside the cache's middleware: what the item answered, as a task-augmented call or a 2026-07-28 round would.
    server.use((ctx, next) => {
      if (ctx.method !== 'tools/call' || (ctx.params.arguments as { q?: string } | undefined)?.q === 'plain') return next();
      answered++;
      const q = (ctx.params.arguments as { q: string }).q;
      return q === 'task' ? { task: { taskId: `t${answered}`, status: 'working' }, content: [] } : { resultType: 'input_required', content: [] };
    });
    const client = await createTestClient(server);
    cleanups.push(() => client.close());
    for (const q of ['task', 'task', 'round', 'round']) await client.request('tools/call', { name: 'search', arguments: { q } }).catch(() => undefined);
    expect(answered).toBe(4);
    expect([await call(client, 'search', { q: 'plain' }), await call(client, 'search', { q: 'plain' })]).toEqual(['plain p1 #1', 'plain p1 #1']);
  });

  it('does not cache an item behind a @Guard: the guard decides every call', async () => {
    const carol = { subject: 'carol', scopes: [], claims: {} };
    const { client } = await connect({}, { principal: carol });
    expect([await call(client, 'guarded'), await call(client, 'guarded')]).toEqual(['guarded #1', 'guarded #2']);
    guardAllows = false;
    await expect(client.callTool('guarded')).rejects.toThrow('refused by the guard');
  });

  it('never serves a hit to a caller the item refuses: public entries are shared by callers of the same scopes and roles', async () => {
    const { server, client: reader } = await connect({}, { principal: { subject: 'ann', scopes: ['notes:read'], claims: {} } });
    const connectAs = async (subject: string, scopes: string[]) => {
      const client = await createTestClient(server, { principal: { subject, scopes, claims: {} } });
      cleanups.push(() => client.close());
      return client;
    };
    expect(await call(reader, 'notes')).toBe('notes #1');
    expect(await call(await connectAs('ben', ['notes:read']), 'notes')).toBe('notes #1');
    await expect((await connectAs('eve', [])).callTool('notes')).rejects.toThrow('notes:read');
    expect(calls.notes).toBe(1);
  });

  it('caches prompts, per arguments like tools', async () => {
    const { client } = await connect();
    const text = async () => ((await client.getPrompt('greet')).messages[0].content as { text: string }).text;
    expect([await text(), await text()]).toEqual(['hello #1', 'hello #1']);
  });
});

describe('ResultCache: invalidation', () => {
  it('invalidateTool drops every cached result of that tool only', async () => {
    const { client, cache } = await connect();
    await call(client, 'search', { q: 'a' });
    await call(client, 'search', { q: 'b' });
    await call(client, 'weather');
    await cache.invalidateTool('search');
    expect(await call(client, 'search', { q: 'a' })).toBe('a p1 #3');
    expect(await call(client, 'search', { q: 'b' })).toBe('b p1 #4');
    expect(await call(client, 'weather')).toBe('sunny #1');
  });

  it('invalidatePrompt drops the prompt, invalidateResource a resource', async () => {
    const { client, cache } = await connect();
    const text = async () => ((await client.getPrompt('greet')).messages[0].content as { text: string }).text;
    await text();
    await cache.invalidatePrompt('greet');
    expect(await text()).toBe('hello #2');
    await read(client, 'docs://readme');
    await cache.invalidateResource('docs://readme');
    expect((await read(client, 'docs://readme')).text).toBe('readme #2');
  });

  it("drops a resource's reads when the server announces it updated (server.resources.notifyUpdated), that uri only", async () => {
    const { client, server } = await connect();
    expect((await read(client, 'docs://readme')).text).toBe('readme #1');
    expect((await read(client, 'docs://pages/1')).text).toBe('page 1 #1');
    expect((await read(client, 'docs://pages/2')).text).toBe('page 2 #1');
    server.resources.notifyUpdated('docs://readme');
    server.resources.notifyUpdated('docs://pages/2');
    expect((await read(client, 'docs://readme')).text).toBe('readme #2');
    expect((await read(client, 'docs://pages/1')).text).toBe('page 1 #1');
    expect((await read(client, 'docs://pages/2')).text).toBe('page 2 #2');
  });
});

describe('ResultCache: 2026-07-28 caching hints of resources/read', () => {
  it('sends ttlMs and cacheScope as the cache serves the read: the full ttl on a miss, what is left on a hit', async () => {
    const { client } = await connect({}, { protocolVersion: '2026-07-28' });
    expect(await read(client, 'docs://readme')).toEqual({ text: 'readme #1', ttlMs: 10_000, cacheScope: 'public' });
    clock.t += 4_000;
    expect(await read(client, 'docs://readme')).toEqual({ text: 'readme #1', ttlMs: 6_000, cacheScope: 'public' });
    expect(await read(client, 'docs://pages/7')).toEqual({ text: 'page 7 #1', ttlMs: 5_000, cacheScope: 'private' });
    clock.t += 1_250;
    expect(await read(client, 'docs://pages/7')).toEqual({ text: 'page 7 #1', ttlMs: 3_750, cacheScope: 'private' });
  });

  it('sends no hints to an older client, and the read is cached all the same; tool results carry none', async () => {
    const { client } = await connect({}, { protocolVersion: '2025-11-25' });
    const first = await client.readResource('docs://readme');
    expect(first).not.toHaveProperty('ttlMs');
    expect(first).not.toHaveProperty('cacheScope');
    expect((await read(client, 'docs://readme')).text).toBe('readme #1');
    const modern = (await connect({}, { protocolVersion: '2026-07-28' })).client;
    const tool = await modern.callTool('weather');
    expect(tool).not.toHaveProperty('ttlMs');
    expect(tool).not.toHaveProperty('cacheScope');
  });
});

describe('ResultCache: one run per replica for concurrent misses', () => {
  it('runs the item once for concurrent calls with the same key, and each gets the result', async () => {
    const { client } = await connect();
    let open!: () => void;
    gate = new Promise((resolve) => (open = resolve));
    const pending = Array.from({ length: 5 }, () => call(client, 'slow'));
    // Let every request reach the cache before the item ends.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(calls.slow).toBe(1);
    open();
    expect(await Promise.all(pending)).toEqual(Array(5).fill('slow #1'));
    expect(calls.slow).toBe(1);
  });

  it('lets the waiting calls run themselves when the first one fails', async () => {
    const { client } = await connect();
    failing = true;
    const reads = await Promise.allSettled([client.readResource('docs://flaky'), client.readResource('docs://flaky')]);
    expect(reads.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(calls.flaky).toBe(2);
  });
});

describe('ResultCache: a store that fails', () => {
  it('is bypassed (the item runs), reported once per burst of failures', async () => {
    let down = true;
    const memory = new MemoryResultCache();
    const store: ResultCacheStore = {
      get: (group, key) => (down ? Promise.reject(new Error('store down')) : memory.get(group, key)),
      set: (group, key, value, ttlMs) => (down ? Promise.reject(new Error('store down')) : memory.set(group, key, value, ttlMs)),
      invalidate: (group) => memory.invalidate(group),
    };
    const reports: string[] = [];
    const server = serverWith(new ResultCache({ store }), (what, error) => reports.push(`${what}: ${(error as Error).message}`));
    const client = await createTestClient(server);
    cleanups.push(() => client.close());
    expect([await call(client, 'weather'), await call(client, 'weather'), await call(client, 'weather')]).toEqual(['sunny #1', 'sunny #2', 'sunny #3']);
    expect(reports).toEqual(['plugin "guards:cache": the result cache store failed; items run without the cache until it answers: store down']);
    down = false;
    expect([await call(client, 'weather'), await call(client, 'weather')]).toEqual(['sunny #4', 'sunny #4']);
    down = true;
    expect(await call(client, 'weather')).toBe('sunny #5');
    expect(reports).toHaveLength(2);
  });
});

describe('ResultCache: privacy over HTTP', () => {
  let issuer: TestIssuer;
  let http: Server;
  let url: string;

  async function serve(withAuth: boolean) {
    http = createServer();
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => {
      http.close(() => resolve());
      http.closeAllConnections();
    }));
    url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
    const server = serverWith(new ResultCache({ store: new MemoryResultCache({ now: clock.now }) }));
    if (withAuth) {
      issuer = await TestIssuer.start();
      cleanups.push(() => issuer.close());
      server.plugin(auth, { resource: url, issuer: issuer.url });
    }
    const handler = server.httpHandler();
    http.on('request', (req, res) => void handler(req, res));
  }

  /** A stateless 2026-07-28 tools/call with an optional bearer token; the text it answered. */
  async function callOverHttp(name: string, token?: string): Promise<string> {
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': name,
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } },
      }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { result: { content: Array<{ text: string }> } };
    return body.result.content[0].text;
  }

  it('keeps private results per principal (two tokens, two entries) and per grant, and shares public ones', async () => {
    await serve(true);
    const alice = await issuer.token({ audience: url, subject: 'alice', scopes: ['notes:read'] });
    const bob = await issuer.token({ audience: url, subject: 'bob', scopes: ['notes:read'] });
    const aliceWider = await issuer.token({ audience: url, subject: 'alice', scopes: ['notes:read', 'notes:write'] });
    expect(await callOverHttp('whoami', alice)).toBe('alice #1');
    expect(await callOverHttp('whoami', bob)).toBe('bob #2');
    expect(await callOverHttp('whoami', alice)).toBe('alice #1');
    expect(await callOverHttp('whoami', bob)).toBe('bob #2');
    // The same subject with other scopes: what the other token was served is not reused.
    expect(await callOverHttp('whoami', aliceWider)).toBe('alice #3');
    expect(calls.whoami).toBe(3);
    expect(await callOverHttp('weather', alice)).toBe('sunny #1');
    expect(await callOverHttp('weather', bob)).toBe('sunny #1');
    expect(calls.weather).toBe(1);
  });

  it('bypasses private caching for anonymous HTTP callers; public results are still shared', async () => {
    await serve(false);
    expect([await callOverHttp('whoami'), await callOverHttp('whoami')]).toEqual(['nobody #1', 'nobody #2']);
    expect([await callOverHttp('weather'), await callOverHttp('weather')]).toEqual(['sunny #1', 'sunny #1']);
  });
});

describe('ResultCache: options', () => {
  it('refuses settings and stores it cannot use, naming the option', () => {
    expect(() => new ResultCache({ tools: { search: { ttlMs: 0 } } })).toThrow('guards:cache: tools["search"]: ttlMs must be a positive integer (ms), not 0');
    expect(() => new ResultCache({ resources: { 'docs://x': { ttlMs: 10, scope: 'shared' as never } } })).toThrow('guards:cache: resources["docs://x"]: scope must be "private" or "public", not "shared"');
    expect(() => new ResultCache({ prompts: [] as never })).toThrow('guards:cache: prompts must be an object of settings by name');
    expect(() => new ResultCache({ store: { get: () => undefined } as never })).toThrow('guards:cache: store must be a ResultCacheStore');
    expect(() => new ResultCache({ tool: {} } as never)).toThrow('guards:cache: unknown option "tool" (options are store, tools, resources, prompts)');
    expect(() => CacheResult({ ttlMs: 1.5 })).toThrow('@CacheResult: ttlMs must be a positive integer (ms), not 1.5');
    expect(() => CacheResult(undefined as never)).toThrow(TypeError);
  });

  it('is one plugin named guards:cache per server', () => {
    const cache = new ResultCache();
    expect(cache.name).toBe('guards:cache');
    serverWith(cache);
    expect(() => serverWith(cache)).toThrow(DefinitionError);
  });
});
