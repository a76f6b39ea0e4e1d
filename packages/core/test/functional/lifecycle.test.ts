import 'reflect-metadata';
import { IsString } from 'class-validator';
import { Context, HANDSHAKE_VERSIONS, McpServer, Tool } from '@typemcp/core';
import { expectValidServerMessages } from '../../../../test-support/specSchema';
import { RawClient } from './rawClient';

class EchoInput {
  @IsString() text!: string;
}

class EchoTools {
  @Tool({ description: 'Echo the text back' })
  echo(input: EchoInput): string {
    return input.text;
  }
}

const newServer = (extra: Partial<ConstructorParameters<typeof McpServer>[0]> = {}) =>
  new McpServer({ name: 'lifecycle', version: '1.2.3', providers: [EchoTools], ...extra });

const clients: Array<{ client: RawClient; version: string }> = [];
async function track(client: Promise<RawClient>, version = '2025-11-25'): Promise<RawClient> {
  const c = await client;
  clients.push({ client: c, version });
  return c;
}

afterEach(async () => {
  for (const { client, version } of clients.splice(0)) {
    expectValidServerMessages(version, client.received.filter((r) => !('batch' in r.message)));
    await client.close();
  }
});

describe('initialize', () => {
  it.each(HANDSHAKE_VERSIONS)('negotiates %s when the client asks for it', async (version) => {
    const client = await track(RawClient.connect(newServer({ instructions: 'Use echo.' })), version);
    const response = await client.request('initialize', {
      protocolVersion: version,
      capabilities: {},
      clientInfo: { name: 'c', version: '1' },
    });
    expect(response.result).toEqual({
      protocolVersion: version,
      capabilities: { logging: {}, tools: { listChanged: true } },
      serverInfo: { name: 'lifecycle', version: '1.2.3' },
      instructions: 'Use echo.',
    });
  });

  it('answers an unknown version with the newest it serves', async () => {
    const client = await track(RawClient.connect(newServer()));
    const response = await client.request('initialize', { protocolVersion: '2099-01-01', capabilities: {}, clientInfo: { name: 'c', version: '1' } });
    expect(response.result?.protocolVersion).toBe('2025-11-25');
  });

  it('declares only logging when nothing is registered', async () => {
    const client = await track(RawClient.connect(new McpServer({ name: 'empty', version: '1' })));
    const response = await client.request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } });
    expect(response.result?.capabilities).toEqual({ logging: {} });
  });

  it('adds title, description and icons only where the version has them', async () => {
    const server = newServer({ title: 'Life', description: 'A test server', icons: [{ src: 'https://example.com/i.png' }] });
    const old = await track(RawClient.initialized(server, '2025-03-26'), '2025-03-26');
    const mid = await track(RawClient.initialized(server, '2025-06-18'), '2025-06-18');
    const now = await track(RawClient.initialized(server, '2025-11-25'));
    const info = (c: RawClient) => c.received.find((r) => r.requestMethod === 'initialize')!.message.result.serverInfo;
    expect(info(old)).toEqual({ name: 'lifecycle', version: '1.2.3' });
    expect(info(mid)).toEqual({ name: 'lifecycle', version: '1.2.3', title: 'Life' });
    expect(info(now)).toEqual({
      name: 'lifecycle',
      version: '1.2.3',
      title: 'Life',
      description: 'A test server',
      icons: [{ src: 'https://example.com/i.png' }],
    });
  });

  it('rejects invalid params with -32602 and stays usable', async () => {
    const client = await track(RawClient.connect(newServer()));
    const bad = await client.request('initialize', { protocolVersion: 1, capabilities: {}, clientInfo: { name: 'c', version: '1' } });
    expect(bad.error).toMatchObject({ code: -32602, message: expect.stringContaining('"protocolVersion" must be a string') });
    const noInfo = await client.request('initialize', { protocolVersion: '2025-11-25', capabilities: {} });
    expect(noInfo.error).toMatchObject({ code: -32602, message: expect.stringContaining('"clientInfo"') });
    const good = await client.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } });
    expect(good.result).toBeDefined();
  });

  it('refuses a second initialize', async () => {
    const client = await track(RawClient.initialized(newServer()));
    const again = await client.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } });
    expect(again.error).toMatchObject({ code: -32600, message: 'The session is already initialized' });
  });

  it('allows only ping before initialization', async () => {
    const client = await track(RawClient.connect(newServer()));
    expect((await client.request('ping')).result).toEqual({});
    const early = await client.request('tools/list');
    expect(early.error).toMatchObject({ code: -32600, message: 'Server not initialized: send "initialize" before "tools/list"' });
  });

  it('answers ping after initialization, and pings the client', async () => {
    const server = newServer();
    const client = await track(RawClient.initialized(server));
    expect((await client.request('ping')).result).toEqual({});
    await expect(server.sessions[0].ping()).resolves.toBeUndefined();
    expect(client.received.some((r) => r.message.method === 'ping')).toBe(true);
  });
});

describe('malformed input', () => {
  it('answers bad JSON with -32700 and keeps serving', async () => {
    const client = await track(RawClient.initialized(newServer()));
    client.send('{"jsonrpc": "2.0", "id": 1, "method": ');
    const error = await client.waitFor((m) => m.error?.code === -32700);
    expect(error).toEqual({ jsonrpc: '2.0', error: { code: -32700, message: expect.stringMatching(/^Parse error: /) } });
    expect((await client.request('ping')).result).toEqual({});
  });

  it('answers an invalid message with -32600 addressed to its id', async () => {
    const client = await track(RawClient.initialized(newServer()));
    client.send({ jsonrpc: '1.0', id: 'x1', method: 'ping' });
    const error = await client.waitFor((m) => m.id === 'x1');
    expect(error.error).toMatchObject({ code: -32600, message: expect.stringContaining('"jsonrpc" must be "2.0"') });
    client.send({ jsonrpc: '2.0', id: null, method: 'ping' });
    const nullId = await client.waitFor((m) => !('id' in m) && m.error?.code === -32600);
    expect(nullId.error.message).toContain('"id" must be a string or an integer');
  });

  it('answers an unknown method with -32601', async () => {
    const client = await track(RawClient.initialized(newServer()));
    const response = await client.request('does/not/exist');
    expect(response.error).toEqual({ code: -32601, message: 'Method not found: does/not/exist' });
  });

  it('ignores unknown notifications and stray responses', async () => {
    const client = await track(RawClient.initialized(newServer({ onError: () => undefined })));
    client.send({ jsonrpc: '2.0', method: 'notifications/whatever', params: { a: 1 } });
    client.send({ jsonrpc: '2.0', id: 12345, result: {} });
    expect((await client.request('ping')).result).toEqual({});
    expect(client.received.filter((r) => r.message.error)).toHaveLength(0);
  });

  it('refuses a request id already in progress', async () => {
    let release!: () => void;
    class Slow {
      @Tool() async wait(): Promise<string> {
        await new Promise<void>((resolve) => (release = resolve));
        return 'done';
      }
    }
    const client = await track(RawClient.initialized(new McpServer({ name: 's', version: '1', providers: [Slow] })));
    client.send({ jsonrpc: '2.0', id: 'dup', method: 'tools/call', params: { name: 'wait' } });
    await client.settle();
    client.send({ jsonrpc: '2.0', id: 'dup', method: 'ping' });
    const refused = await client.waitFor((m) => m.id === 'dup' && m.error);
    expect(refused.error).toMatchObject({ code: -32600, message: 'Request id "dup" is already in use by a request in progress' });
    release();
    const done = await client.waitFor((m) => m.id === 'dup' && m.result);
    expect(done.result.content[0].text).toBe('done');
  });
});

describe('batches', () => {
  it('are served in 2025-03-26 with one array of answers', async () => {
    const client = await track(RawClient.initialized(newServer(), '2025-03-26'), '2025-03-26');
    client.send([
      { jsonrpc: '2.0', id: 'a', method: 'ping' },
      { jsonrpc: '2.0', method: 'notifications/whatever' },
      { jsonrpc: '2.0', id: 'b', method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } },
      { jsonrpc: '2.0', id: 'c', method: 'nope' },
    ]);
    const batch = await client.waitFor((m) => 'batch' in m);
    expect(batch.batch).toEqual([
      { jsonrpc: '2.0', id: 'a', result: {} },
      { jsonrpc: '2.0', id: 'b', result: { content: [{ type: 'text', text: 'hi' }] } },
      { jsonrpc: '2.0', id: 'c', error: { code: -32601, message: 'Method not found: nope' } },
    ]);
  });

  it('may not carry initialize', async () => {
    const client = await track(RawClient.initialized(newServer(), '2025-03-26'), '2025-03-26');
    client.send([{ jsonrpc: '2.0', id: 'i', method: 'initialize', params: {} }]);
    const batch = await client.waitFor((m) => 'batch' in m);
    expect(batch.batch[0].error).toEqual({ code: -32600, message: 'initialize must not be part of a batch' });
  });

  it.each(['2024-11-05', '2025-06-18', '2025-11-25'])('are refused in %s', async (version) => {
    const client = await track(RawClient.initialized(newServer(), version), version);
    client.send([{ jsonrpc: '2.0', id: 'a', method: 'ping' }]);
    const error = await client.waitFor((m) => m.error?.code === -32600);
    expect(error).toEqual({
      jsonrpc: '2.0',
      error: { code: -32600, message: `Invalid Request: JSON-RPC batches are not supported in protocol version ${version}` },
    });
    expect((await client.request('ping')).result).toEqual({});
  });

  it('are refused before initialization and when empty', async () => {
    const client = await track(RawClient.connect(newServer()));
    client.send([{ jsonrpc: '2.0', id: 'a', method: 'ping' }]);
    await client.waitFor((m) => m.error?.message?.includes('(none negotiated yet)'));
    client.send([]);
    await client.waitFor((m) => m.error?.message === 'Invalid Request: an empty batch');
  });
});

describe('the era of a request', () => {
  class VersionTools {
    @Tool({ description: 'Says which version the request is served at' })
    version(ctx: Context): string {
      return `${ctx.protocolVersion} ${ctx.session?.id === undefined ? 'no session' : 'session'}`;
    }
  }

  it('serves each request in its own era: the session for plain requests, the request\'s _meta for 2026-07-28 ones', async () => {
    const server = new McpServer({ name: 'eras', version: '1', providers: [VersionTools] });
    const client = await track(RawClient.initialized(server, '2025-06-18'), '2025-06-18');
    const plain = await client.request('tools/call', { name: 'version' });
    expect(plain.result).toEqual({ content: [{ type: 'text', text: '2025-06-18 session' }] });
    const modernMeta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
    const modern = await client.request('tools/call', { name: 'version', _meta: modernMeta });
    expect(modern.result.content).toEqual([{ type: 'text', text: '2026-07-28 no session' }]);
    expect(modern.result.resultType).toBe('complete');
    // A version named in _meta is per request: a handshake version there is not served that way.
    const named = await client.request('tools/call', { name: 'version', _meta: { ...modernMeta, 'io.modelcontextprotocol/protocolVersion': '2025-06-18' } });
    expect(named.error.code).toBe(-32022);
    // Before the handshake, plain requests are refused and 2026-07-28 ones served.
    const early = await RawClient.connect(server);
    const refused = await early.request('tools/list', {});
    expect(refused.error).toMatchObject({ code: -32600, message: 'Server not initialized: send "initialize" before "tools/list"' });
    const served = await early.request('tools/list', { _meta: modernMeta });
    expect(served.result.tools).toHaveLength(1);
    await early.close();
  });
});
