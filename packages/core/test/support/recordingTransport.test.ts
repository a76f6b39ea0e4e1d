import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { RecordingTransport } from '../../../../test-support/recordingTransport';
import { connectSdkClient } from '../../../../test-support/sdkClient';
import { SUPPORTED_SPEC_VERSIONS, expectValidServerMessages } from '../../../../test-support/specSchema';

function sdkServer(): McpServer {
  const server = new McpServer({ name: 'sdk-fixture', version: '1.0.0' }, { capabilities: { logging: {} } });
  server.registerTool('hello', { description: 'Says hello' }, async () => ({ content: [{ type: 'text', text: 'hello' }] }));
  server.registerResource('readme', 'file:///readme.txt', { mimeType: 'text/plain' }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'read me' }],
  }));
  server.registerPrompt('greet', { description: 'Greets' }, () => ({
    messages: [{ role: 'user', content: { type: 'text', text: 'Hi' } }],
  }));
  return server;
}

async function linkedPair(server: McpServer, wrapServerSide?: (t: Transport) => Transport): Promise<Transport> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(wrapServerSide ? wrapServerSide(serverSide) : serverSide);
  return clientSide;
}

describe('connectSdkClient', () => {
  it.each(SUPPORTED_SPEC_VERSIONS)('negotiates %s and records a conversation that fits its schema', async (version) => {
    const server = sdkServer();
    const { client, recorder } = await connectSdkClient(await linkedPair(server), { protocolVersion: version });

    await client.listTools();
    await client.callTool({ name: 'hello', arguments: {} });
    await client.ping();
    await client.listResources();
    await client.readResource({ uri: 'file:///readme.txt' });
    await client.listPrompts();
    await client.getPrompt({ name: 'greet' });
    await client.setLoggingLevel('debug');
    await server.server.sendLoggingMessage({ level: 'info', data: 'logged' });
    await expect(client.callTool({ name: 'missing', arguments: {} })).resolves.toMatchObject({ isError: true });

    expect(recorder.sent[0]).toMatchObject({ method: 'initialize', params: { protocolVersion: version } });
    expect(recorder.received[0]).toMatchObject({ requestMethod: 'initialize', message: { result: { protocolVersion: version } } });
    expect(recorder.protocolVersion).toBe(version);
    expect(server.server.getClientVersion()).toEqual({ name: 'sdk-interop-client', version: '0.0.0' });
    expect(recorder.received.map((r) => r.requestMethod ?? ('method' in r.message ? r.message.method : '?'))).toEqual([
      'initialize',
      'tools/list',
      'tools/call',
      'ping',
      'resources/list',
      'resources/read',
      'prompts/list',
      'prompts/get',
      'logging/setLevel',
      'notifications/message',
      'tools/call',
    ]);
    expectValidServerMessages(version, recorder.received);
    await client.close();
  });

  it('fails when the server answers another version than the pinned one', async () => {
    const downgrade = (message: JSONRPCMessage): JSONRPCMessage =>
      'result' in message && 'serverInfo' in message.result ? { ...message, result: { ...message.result, protocolVersion: '2024-11-05' } } : message;
    const transport = await linkedPair(sdkServer(), (t) => new RecordingTransport(t, { rewriteOutgoing: downgrade }));
    await expect(connectSdkClient(transport, { protocolVersion: '2025-06-18' })).rejects.toThrow(
      'Asked the server for protocol 2025-06-18 but it answered 2024-11-05',
    );
  });

  it('refuses versions the SDK client cannot speak', async () => {
    const transport = await linkedPair(sdkServer());
    await expect(connectSdkClient(transport, { protocolVersion: '2026-07-28' })).rejects.toThrow(/cannot speak 2026-07-28/);
  });
});

describe('RecordingTransport', () => {
  class FakeTransport implements Transport {
    onclose?: () => void;
    onerror?: (error: Error) => void;
    onmessage?: (message: JSONRPCMessage) => void;
    sessionId?: string = 'session-1';
    start = jest.fn(async () => {});
    close = jest.fn(async () => {});
    send = jest.fn(async (_message: JSONRPCMessage) => {});
    setProtocolVersion = jest.fn((_version: string) => {});
  }

  it('forwards every call and callback', async () => {
    const inner = new FakeTransport();
    const recorder = new RecordingTransport(inner);
    const events: string[] = [];
    recorder.onmessage = (message) => events.push(`message:${JSON.stringify(message)}`);
    recorder.onclose = () => events.push('close');
    recorder.onerror = (error) => events.push(`error:${error.message}`);

    await recorder.start();
    expect(inner.start).toHaveBeenCalledTimes(1);
    expect(recorder.sessionId).toBe('session-1');
    recorder.sessionId = 'session-2';
    expect(inner.sessionId).toBe('session-2');
    recorder.setProtocolVersion('2025-06-18');
    expect(inner.setProtocolVersion).toHaveBeenCalledWith('2025-06-18');

    const request: JSONRPCMessage = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    await recorder.send(request, { relatedRequestId: 9 });
    expect(inner.send).toHaveBeenCalledWith(request, { relatedRequestId: 9 });

    inner.onmessage?.({ jsonrpc: '2.0', id: 1, result: { tools: [] } });
    inner.onerror?.(new Error('boom'));
    inner.onclose?.();
    await recorder.close();
    expect(inner.close).toHaveBeenCalledTimes(1);
    expect(events).toEqual(['message:{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}', 'error:boom', 'close']);
  });

  it('tags responses and errors with the method of the request they answer', async () => {
    const inner = new FakeTransport();
    const recorder = new RecordingTransport(inner);
    await recorder.send({ jsonrpc: '2.0', id: 'a', method: 'tools/call', params: { name: 'x' } });
    await recorder.send({ jsonrpc: '2.0', id: 'b', method: 'prompts/get', params: { name: 'y' } });
    await recorder.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    inner.onmessage?.({ jsonrpc: '2.0', id: 'b', error: { code: -32602, message: 'Unknown prompt' } });
    inner.onmessage?.({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    inner.onmessage?.({ jsonrpc: '2.0', id: 5, method: 'ping' });
    inner.onmessage?.({ jsonrpc: '2.0', id: 'a', result: { content: [] } });
    inner.onmessage?.({ jsonrpc: '2.0', id: 'a', result: { content: [] } });
    expect(recorder.received.map((r) => r.requestMethod)).toEqual(['prompts/get', undefined, undefined, 'tools/call', undefined]);
    expect(recorder.sent).toHaveLength(3);
  });

  it('records the rewritten message, as it went on the wire', async () => {
    const inner = new FakeTransport();
    const recorder = new RecordingTransport(inner, {
      rewriteOutgoing: (m) => ('method' in m ? { ...m, method: `${m.method}-rewritten` } : m),
    });
    await recorder.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
    expect(recorder.sent).toEqual([{ jsonrpc: '2.0', id: 1, method: 'ping-rewritten' }]);
    expect(inner.send).toHaveBeenCalledWith({ jsonrpc: '2.0', id: 1, method: 'ping-rewritten' }, undefined);
  });
});
