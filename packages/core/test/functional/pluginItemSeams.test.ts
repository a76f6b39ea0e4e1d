import 'reflect-metadata';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Context, McpServer, metadataStore, Prompt, RateLimitedError, Resource, Tool } from '@typemcp/core';
import type { PluginHost, ServerObserver } from '@typemcp/core';

/**
 * The seams per-item plugins (rate limits, caches, audit logs) stand on: the item a request
 * names (`host.itemOf`), resource updates heard by observers, the client's address on the
 * Context, and a rate-limited answer over HTTP.
 */
function declareProviders() {
  class Catalog {
    @Tool({ description: 'Searches' })
    search(): string {
      return 'found';
    }

    @Tool({ description: 'Says where the caller is' })
    where(ctx: Context): string {
      return ctx.clientAddress ?? 'nowhere';
    }

    @Tool({ description: 'Always over the limit' })
    limited(): string {
      throw new RateLimitedError('Rate limit: tool "limited" allows 0 calls', 1_500, { limit: 0, remaining: 0 });
    }

    @Prompt({ description: 'Greets' })
    greet(): string {
      return 'hello';
    }

    @Resource('docs://readme')
    readme(): string {
      return 'readme';
    }

    @Resource({ uri: 'docs://pages/{id}' })
    page(): string {
      return 'page';
    }
  }
  return { Catalog };
}

let Catalog: ReturnType<typeof declareProviders>['Catalog'];
beforeEach(() => {
  metadataStore.clear();
  ({ Catalog } = declareProviders());
});

const captureHost = (server: McpServer, observer?: ServerObserver): PluginHost => {
  let captured: PluginHost | undefined;
  server.plugin({
    name: 'capture',
    register: (host) => {
      captured = host;
      if (observer) host.observe(observer);
    },
  });
  return captured!;
};

describe('PluginHost.itemOf', () => {
  it('names the item of a tools/call, prompts/get and resources/read with the author code behind it', () => {
    const host = captureHost(new McpServer({ name: 's', version: '1', providers: [Catalog] }));
    const tool = host.itemOf('tools/call', { name: 'search', arguments: {} });
    expect(tool).toMatchObject({ kind: 'tool', name: 'search', target: { provider: Catalog, methodName: 'search' } });
    expect(tool?.inputSchema).toMatchObject({ type: 'object' });
    expect(host.itemOf('prompts/get', { name: 'greet' })).toMatchObject({ kind: 'prompt', name: 'greet', target: { methodName: 'greet' } });
    expect(host.itemOf('resources/read', { uri: 'docs://readme' })).toMatchObject({ kind: 'resource', name: 'docs://readme', target: { methodName: 'readme' } });
    // Read through a template: the uri as asked, the template as the target's name.
    expect(host.itemOf('resources/read', { uri: 'docs://pages/7' })).toMatchObject({ kind: 'resource', name: 'docs://pages/7', target: { methodName: 'page', name: 'docs://pages/{id}' } });
  });

  it('names nothing for another method, a name nothing serves, or params of the wrong type', () => {
    const host = captureHost(new McpServer({ name: 's', version: '1', providers: [Catalog] }));
    expect(host.itemOf('tools/list', {})).toBeUndefined();
    expect(host.itemOf('tools/call', { name: 'missing' })).toBeUndefined();
    expect(host.itemOf('tools/call', { name: 42 })).toBeUndefined();
    expect(host.itemOf('resources/read', { uri: 'docs://nowhere' })).toBeUndefined();
    expect(host.itemOf('prompts/get', {})).toBeUndefined();
  });

  it('sees items registered after the plugin and those of a mounted server, under their names here', () => {
    const server = new McpServer({ name: 'gateway', version: '1' });
    const host = captureHost(server);
    expect(host.itemOf('tools/call', { name: 'search' })).toBeUndefined();
    server.mount(new McpServer({ name: 'child', version: '1', providers: [Catalog] }), { namespace: 'cat' });
    const mounted = host.itemOf('tools/call', { name: 'cat_search' });
    expect(mounted).toMatchObject({ kind: 'tool', name: 'cat_search' });
    expect(mounted?.target.methodName).toBe('search');
  });
});

describe('ServerObserver.resourceUpdated', () => {
  it('hears every announced update, with or without a subscriber, once each', async () => {
    const heard: string[] = [];
    const server = new McpServer({ name: 's', version: '1', providers: [Catalog] });
    captureHost(server, { resourceUpdated: (uri) => heard.push(uri) });
    server.resources.notifyUpdated('docs://readme');
    server.resources.notifyUpdated('docs://pages/7');
    expect(heard).toEqual(['docs://readme', 'docs://pages/7']);
    await server.close();
  });
});

const MODERN = '2026-07-28';
const call = (name: string, id = 1) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name, arguments: {}, _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} } },
  });
const headers = (name: string) => ({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': MODERN,
  'mcp-method': 'tools/call',
  'mcp-name': name,
});

describe('over HTTP', () => {
  let listener: http.Server | undefined;
  let server: McpServer | undefined;
  afterEach(async () => {
    await server?.close();
    listener?.closeAllConnections();
    if (listener) await new Promise((resolve) => listener!.close(resolve));
    listener = server = undefined;
  });

  const serve = async (made: McpServer): Promise<string> => {
    server = made;
    const handler = made.httpHandler();
    listener = http.createServer((req, res) => void handler(req, res));
    await new Promise<void>((resolve) => listener!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(listener.address() as AddressInfo).port}/mcp`;
  };

  it('gives handlers the client address the host knows', async () => {
    const url = await serve(new McpServer({ name: 's', version: '1', providers: [Catalog] }));
    const answer = await fetch(url, { method: 'POST', headers: headers('where'), body: call('where') });
    expect(((await answer.json()) as { result: { content: Array<{ text: string }> } }).result.content[0].text).toMatch(/^(127\.0\.0\.1|::ffff:127\.0\.0\.1)$/);
  });

  it('answers a RateLimitedError with 429, Retry-After in whole seconds rounded up, and the quota headers', async () => {
    const url = await serve(new McpServer({ name: 's', version: '1', providers: [Catalog] }));
    const answer = await fetch(url, { method: 'POST', headers: headers('limited'), body: call('limited') });
    expect(answer.status).toBe(429);
    expect(answer.headers.get('retry-after')).toBe('2');
    expect(answer.headers.get('ratelimit-limit')).toBe('0');
    expect(answer.headers.get('ratelimit-remaining')).toBe('0');
    expect(await answer.json()).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32023, message: 'Rate limit: tool "limited" allows 0 calls', data: { retryAfterMs: 1500, limit: 0, remaining: 0 } },
    });
  });

  it('answers 429 when an HTTP stage throws it, before any later stage runs', async () => {
    const later: string[] = [];
    const made = new McpServer({ name: 's', version: '1', providers: [Catalog] }).plugin({
      name: 'flood',
      register(host) {
        host.httpStage({ name: 'flood', before: 'authenticate', handle: () => { throw new RateLimitedError('Too many requests from this address', 250); } });
        host.httpStage({ name: 'after', after: 'authenticate', handle: () => void later.push('ran') });
      },
    });
    const url = await serve(made);
    const answer = await fetch(url, { method: 'POST', headers: headers('search'), body: call('search') });
    expect(answer.status).toBe(429);
    expect(answer.headers.get('retry-after')).toBe('1');
    expect(answer.headers.get('ratelimit-limit')).toBeNull();
    expect(await answer.json()).toEqual({ jsonrpc: '2.0', error: { code: -32023, message: 'Too many requests from this address', data: { retryAfterMs: 250 } } });
    expect(later).toEqual([]);
  });
});
