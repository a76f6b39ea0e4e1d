import { metadataStore } from '@typemcp/core';
import type { McpServer } from '@typemcp/core';
import { Client, StreamableHttpClientTransport } from '@typemcp/client';
import type { ReceivedNotification } from '@typemcp/client';
import { everythingServer, handlers, text } from './everything';

/** The client over Streamable HTTP against a TypeMCP server on 127.0.0.1, in both eras. */
let server: McpServer;
let url: string;
const seen: Array<{ method: string; headers: Record<string, string>; body?: string }> = [];
/** A fetch that records what the client sends. */
const recording: typeof fetch = async (input, init) => {
  const headers = Object.fromEntries(new Headers(init?.headers).entries());
  seen.push({ method: init?.method ?? 'GET', headers, body: typeof init?.body === 'string' ? init.body : undefined });
  return fetch(input, init);
};

beforeAll(async () => {
  metadataStore.clear();
  server = everythingServer();
  ({ url } = await server.listen({ transport: 'http', host: '127.0.0.1', port: 0, handleSignals: false }));
});
afterAll(() => server.close());
beforeEach(() => void seen.splice(0));

describe('the handshake era over HTTP', () => {
  it('keeps the session of initialize, sends the agreed version, hears the GET stream, and ends with DELETE', async () => {
    const client = await Client.connect(new StreamableHttpClientTransport(url, { fetch: recording }), handlers);
    expect(client.protocolVersion).toBe('2025-11-25');
    expect(text(await client.callTool('echo', { text: 'hi' }))).toBe('hi');
    expect(text(await client.callTool('both'))).toBe('teal hi there');
    const session = seen[0] && seen.find((request) => request.headers['mcp-session-id'])?.headers['mcp-session-id'];
    expect(session).toEqual(expect.any(String));
    const posts = seen.filter((request) => request.method === 'POST');
    expect(posts[0].headers['mcp-protocol-version']).toBeUndefined(); // initialize says it in its body
    expect(posts.slice(1).every((request) => request.headers['mcp-protocol-version'] === '2025-11-25' && request.headers['mcp-session-id'] === session)).toBe(true);
    expect(posts.some((request) => 'mcp-method' in request.headers)).toBe(false);
    expect(seen.some((request) => request.method === 'GET' && request.headers.accept === 'text/event-stream')).toBe(true);
    // The GET stream carries what the server sends outside requests: a resource update.
    await client.subscribe('mem://fixed');
    const updated = new Promise<ReceivedNotification>((resolve) => client.on('notifications/resources/updated', resolve));
    server.resources.notifyUpdated('mem://fixed');
    expect((await updated).params).toMatchObject({ uri: 'mem://fixed' });
    await client.close();
    expect(seen.at(-1)).toMatchObject({ method: 'DELETE', headers: { 'mcp-session-id': session } });
  });
});

describe('2026-07-28 over HTTP', () => {
  it('sends _meta and the mirrored headers with every request, and answers input_required', async () => {
    const client = await Client.connect(new StreamableHttpClientTransport(url, { fetch: recording }), { ...handlers, protocolVersion: '2026-07-28', clientInfo: { name: 'probe', version: '1.0.0' } });
    expect(client.stateless).toBe(true);
    await client.setLogLevel('debug');
    const progress: number[] = [];
    expect(text(await client.callTool('slow', undefined, { onProgress: (update) => progress.push(update.progress) }))).toBe('finished');
    expect(progress).toEqual([1, 2]);
    expect(text(await client.callTool('both'))).toBe('teal hi there');
    expect((await client.readResource('mem://items/9')).contents[0].text).toBe('item 9');
    const call = seen.find((request) => request.body?.includes('"slow"'))!;
    expect(call.headers).toMatchObject({ 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'slow' });
    expect(call.headers['mcp-session-id']).toBeUndefined();
    expect(JSON.parse(call.body!).params._meta).toMatchObject({
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'probe', version: '1.0.0' },
      'io.modelcontextprotocol/clientCapabilities': { elicitation: {}, sampling: {}, roots: {} },
      'io.modelcontextprotocol/logLevel': 'debug',
      progressToken: expect.anything(),
    });
    const retries = seen.filter((request) => request.body?.includes('"both"'));
    expect(retries.length).toBeGreaterThanOrEqual(2);
    expect(JSON.parse(retries.at(-1)!.body!).params.inputResponses).toEqual(expect.any(Object));
    expect(seen.find((request) => request.body?.includes('resources/read'))!.headers['mcp-name']).toBe('mem://items/9');
    await client.close();
    expect(seen.some((request) => request.method === 'DELETE' || request.method === 'GET')).toBe(false);
  });

  it('listens with subscriptions/listen and hears a resource update', async () => {
    const client = await Client.connect(new StreamableHttpClientTransport(url), { protocolVersion: '2026-07-28' });
    const subscription = await client.listen({ resourceSubscriptions: ['mem://fixed'], toolsListChanged: true });
    expect(subscription.honoured).toMatchObject({ resourceSubscriptions: ['mem://fixed'] });
    const updated = new Promise<ReceivedNotification>((resolve) => client.on('notifications/resources/updated', resolve));
    server.resources.notifyUpdated('mem://fixed');
    expect((await updated).params).toMatchObject({ uri: 'mem://fixed' });
    await subscription.close();
    await expect(subscription.ended).resolves.toBe('closed');
    await client.close();
  });

  it('cancels a call with an AbortSignal: its stream closes and the call rejects', async () => {
    const client = await Client.connect(new StreamableHttpClientTransport(url), { protocolVersion: '2026-07-28' });
    const controller = new AbortController();
    const call = client.callTool('hang', undefined, { signal: controller.signal });
    setTimeout(() => controller.abort('enough'), 50);
    await expect(call).rejects.toThrow('cancelled: enough');
    expect(text(await client.callTool('echo', { text: 'after' }))).toBe('after');
    await client.close();
  });
});
