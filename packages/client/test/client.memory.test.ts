import { metadataStore } from '@typemcp/core';
import type { McpServer } from '@typemcp/core';
import { Client, ConnectionClosedError, InMemoryTransport, McpRequestError, RequestTimeoutError } from '@typemcp/client';
import type { ReceivedNotification } from '@typemcp/client';
import { everythingServer, handlers, inMemory, text } from './everything';

let server: McpServer;
beforeEach(() => {
  metadataStore.clear();
  server = everythingServer();
});
afterEach(() => server.close());

describe.each([
  ['the handshake era (default)', undefined, '2025-11-25', false],
  ['2026-07-28', '2026-07-28', '2026-07-28', true],
  ['auto', 'auto', '2026-07-28', true],
])('Client in memory, %s', (_name, protocolVersion, spoken, stateless) => {
  let client: Client;
  beforeEach(async () => {
    client = await inMemory(server, { ...handlers, protocolVersion });
  });
  afterEach(() => client.close());

  it('agrees on the revision and knows the server', () => {
    expect(client.protocolVersion).toBe(spoken);
    expect(client.stateless).toBe(stateless);
    expect(client.serverInfo).toMatchObject({ name: 'everything', version: '1.0.0' });
    expect(client.instructions).toBe('Be kind');
    expect(client.serverCapabilities).toMatchObject({ tools: {}, resources: {}, prompts: {} });
    expect(client.capabilities).toMatchObject({ sampling: { tools: {} }, elicitation: { form: {}, url: {} }, roots: { listChanged: true } });
  });

  it('lists page by page and all at once, and calls tools', async () => {
    const first = await client.listTools();
    expect(first.items).toHaveLength(3);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await client.listTools(first.nextCursor);
    expect(second.items.map((tool) => tool.name)).not.toContain(first.items[0].name);
    const all = await client.listAllTools();
    expect(all.map((tool) => tool.name).sort()).toEqual(['ask', 'both', 'broken', 'chatty', 'echo', 'favourite', 'hang', 'slow', 'where']);
    const names: string[] = [];
    for await (const tool of client.iterate<{ name: string }>('tools/list', 'tools')) names.push(tool.name);
    expect(names).toEqual(all.map((tool) => tool.name));
    expect(text(await client.callTool('echo', { text: 'hi' }))).toBe('hi');
    expect(await client.callTool('broken')).toMatchObject({ isError: true, content: [{ type: 'text', text: 'broken on purpose' }] });
  });

  it('rejects a JSON-RPC error with McpRequestError', async () => {
    await expect(client.callTool('nope')).rejects.toMatchObject({ name: 'McpRequestError', method: 'tools/call', code: -32602 });
    await expect(client.request('no/such/method')).rejects.toBeInstanceOf(McpRequestError);
  });

  it('reads resources and templates, gets prompts, completes', async () => {
    expect((await client.listAllResources()).map((r) => r.uri)).toEqual(['mem://fixed']);
    expect((await client.listAllResourceTemplates()).map((t) => t.uriTemplate)).toEqual(['mem://items/{id}']);
    expect((await client.readResource('mem://items/7')).contents[0]).toMatchObject({ uri: 'mem://items/7', text: 'item 7' });
    expect((await client.listAllPrompts()).map((p) => p.name)).toEqual(['greet']);
    expect((await client.getPrompt('greet', { name: 'Ada' })).messages[0].content).toMatchObject({ type: 'text', text: 'Hello Ada' });
    expect((await client.complete({ type: 'ref/resource', uri: 'mem://items/{id}' }, { name: 'id', value: 'a' })).completion.values).toEqual(['a1', 'a2']);
  });

  it('answers elicitation, sampling and roots with its handlers, several in one call too', async () => {
    expect(text(await client.callTool('favourite'))).toBe('teal');
    expect(text(await client.callTool('ask'))).toBe('hi there');
    expect(text(await client.callTool('where'))).toBe('file:///work file:///home');
    expect(text(await client.callTool('both'))).toBe('teal hi there');
  });

  it('reports progress to onProgress', async () => {
    const updates: unknown[] = [];
    expect(text(await client.callTool('slow', undefined, { onProgress: (update) => updates.push(update) }))).toBe('finished');
    expect(updates).toEqual([
      { progress: 1, total: 2, message: 'half' },
      { progress: 2, total: 2, message: 'done' },
    ]);
  });

  it('cancels with an AbortSignal, and the server hears it', async () => {
    const controller = new AbortController();
    const call = client.callTool('hang', undefined, { signal: controller.signal });
    setTimeout(() => controller.abort('enough'), 20);
    await expect(call).rejects.toThrow('tools/call was cancelled: enough');
    expect(text(await client.callTool('echo', { text: 'still here' }))).toBe('still here');
  });

  it('times out with RequestTimeoutError', async () => {
    await expect(client.callTool('hang', undefined, { timeoutMs: 30 })).rejects.toBeInstanceOf(RequestTimeoutError);
  });

  it('sets the log level: messages below it do not come', async () => {
    const logs: ReceivedNotification[] = [];
    client.on('notifications/message', (notification) => logs.push(notification));
    await client.setLogLevel('info');
    expect(text(await client.callTool('chatty'))).toBe('logged');
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(logs.map((log) => log.params?.level)).toEqual(['info']);
  });

  it('pings', async () => {
    await expect(client.ping()).resolves.toBeUndefined();
  });

  it('subscribes to a resource and hears its updates, then unsubscribes', async () => {
    const subscription = await client.subscribe('mem://fixed');
    expect(subscription.honoured.resourceSubscriptions).toEqual(['mem://fixed']);
    const updated = new Promise<ReceivedNotification>((resolve) => client.on('notifications/resources/updated', resolve));
    server.resources.notifyUpdated('mem://fixed');
    expect((await updated).params).toMatchObject({ uri: 'mem://fixed' });
    await client.unsubscribe('mem://fixed');
    await expect(subscription.ended).resolves.toBe('closed');
  });

  it('rejects what is pending when closed, and refuses to send after', async () => {
    const call = client.callTool('hang');
    await new Promise((resolve) => setTimeout(resolve, 10));
    await client.close();
    await expect(call).rejects.toBeInstanceOf(ConnectionClosedError);
    await expect(client.callTool('echo', { text: 'x' })).rejects.toBeInstanceOf(ConnectionClosedError);
  });
});

describe('Client without handlers', () => {
  it('declares no client feature and answers a question with -32601 (handshake) or fails the call (2026-07-28)', async () => {
    const old = await inMemory(server);
    expect(old.capabilities).toEqual({});
    expect((await old.callTool('favourite')).isError).toBe(true);
    await old.close();
    const modern = await inMemory(server, { protocolVersion: '2026-07-28' });
    await expect(modern.callTool('favourite')).rejects.toThrow();
    await modern.close();
  });

  it('speaks an older handshake revision when asked, declaring what it has', async () => {
    const client = await inMemory(server, { protocolVersion: '2025-03-26', ...handlers });
    expect(client.protocolVersion).toBe('2025-03-26');
    expect(client.capabilities).toEqual({ sampling: {}, roots: { listChanged: true } });
    expect(text(await client.callTool('echo', { text: 'old' }))).toBe('old');
    await client.close();
  });

  it('accepts new Client(options) then connect(transport), once', async () => {
    const client = new Client({ clientInfo: { name: 'mine', version: '2.0.0' } });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    await client.connect(clientSide);
    await expect(client.connect(clientSide)).rejects.toThrow('connected already');
    expect(text(await client.callTool('echo', { text: 'x' }))).toBe('x');
    await client.close();
    expect(client.isClosed).toBe(true);
  });
});

describe('agreeing on a revision with a hand-written server', () => {
  type Message = { id?: number; method?: string; params?: Record<string, unknown> };
  async function handWritten(answer: (message: Message) => unknown): Promise<{ transport: InMemoryTransport; seen: Message[] }> {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const seen: Message[] = [];
    serverSide.onmessage = (raw) => {
      const message = raw as Message;
      seen.push(message);
      if (message.id === undefined) return;
      const reply = answer(message);
      void serverSide.send({ jsonrpc: '2.0', id: message.id, ...(reply as object) } as never);
    };
    await serverSide.start();
    return { transport: clientSide, seen };
  }
  const initialized = { result: { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'old', version: '1' } } };

  it('auto: falls back to initialize when server/discover is unknown, and speaks the version the server answers', async () => {
    const { transport, seen } = await handWritten((message) => (message.method === 'server/discover' ? { error: { code: -32601, message: 'Method not found' } } : message.method === 'initialize' ? initialized : { result: {} }));
    const client = await Client.connect(transport, { protocolVersion: 'auto' });
    expect(client.protocolVersion).toBe('2025-06-18');
    expect(seen.map((message) => message.method)).toEqual(['server/discover', 'initialize', 'notifications/initialized']);
    await client.close();
  });

  it('2026-07-28: asks again once with a version the -32022 error offers', async () => {
    let first = true;
    const { transport, seen } = await handWritten((message) => {
      if (first) {
        first = false;
        return { error: { code: -32022, message: 'Unsupported protocol version', data: { supported: ['2026-07-28'], requested: 'x' } } };
      }
      return { result: { supportedVersions: ['2026-07-28'], capabilities: {}, serverInfo: { name: 'modern', version: '1' }, resultType: 'complete' } };
    });
    const client = await Client.connect(transport, { protocolVersion: '2026-07-28' });
    expect(client.serverInfo).toEqual({ name: 'modern', version: '1' });
    expect(seen.map((message) => message.method)).toEqual(['server/discover', 'server/discover']);
    await client.close();
  });

  it('refuses a handshake answer with a version it does not speak', async () => {
    const { transport } = await handWritten(() => ({ result: { protocolVersion: '1999-01-01', capabilities: {}, serverInfo: { name: 'odd', version: '1' } } }));
    await expect(Client.connect(transport)).rejects.toThrow('The server answered initialize with protocol 1999-01-01');
  });
});
