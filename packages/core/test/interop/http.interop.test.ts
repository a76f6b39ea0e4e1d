import express from 'express';
import Fastify from 'fastify';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, LoggingMessageNotificationSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { McpServer } from '@typemcp/core';
import { connectSdkClient } from '../../../../test-support/sdkClient';
import { RecordingTransport } from '../../../../test-support/recordingTransport';
import { expectValidServerMessages } from '../../../../test-support/specSchema';
import { createHttpFixture } from './fixtures/httpServer';

const servers: McpServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(options: Parameters<McpServer['listen']>[0] extends infer O ? Partial<O & { stateless: boolean }> : never = {}) {
  const server = createHttpFixture();
  servers.push(server);
  const address = await server.listen({ transport: 'http', port: 0, ...(options as object) } as never);
  return { server, url: new URL((address as unknown as { url: string }).url) };
}

const textOf = (result: object) => (result as { content: Array<{ text: string }> }).content[0].text;

async function post(url: URL, body: unknown, headers: Record<string, string> = {}) {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };

describe('Streamable HTTP with the official SDK client', () => {
  it.each(['2025-03-26', '2025-06-18', '2025-11-25'])('serves a session at %s: tools, progress, logs, sampling, list_changed', async (version) => {
    const { server, url } = await serve();
    const { client, recorder } = await connectSdkClient(new StreamableHTTPClientTransport(url), {
      protocolVersion: version,
      capabilities: { sampling: {} },
    });
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['echo', 'work', 'ask', 'whoami']);
      expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'over http' } }))).toBe('over http');
      expect(textOf(await client.callTool({ name: 'whoami' }))).toBe('session sdk-interop-client');

      const logs: string[] = [];
      client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(String(n.params.data)));
      const progress: number[] = [];
      const worked = await client.callTool({ name: 'work', arguments: { steps: 3 } }, undefined, { onprogress: (p) => void progress.push(p.progress) });
      expect(textOf(worked)).toBe('worked 3');
      expect(progress).toEqual([1, 2, 3]);
      expect(logs).toEqual(['worked 3 steps']);

      client.setRequestHandler(CreateMessageRequestSchema, async (request) => ({
        role: 'assistant',
        model: 'test-model',
        content: { type: 'text', text: `echo of ${(request.params.messages[0].content as { text: string }).text}` },
      }));
      expect(textOf(await client.callTool({ name: 'ask', arguments: { text: 'hello' } }))).toBe('model said: echo of hello');

      // Messages outside any request travel on the session's GET stream.
      const changed = new Promise<void>((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
      await new Promise((resolve) => setTimeout(resolve, 100)); // the SDK opens its GET stream after initialized
      server.tools.disable('echo');
      await changed;
      expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('echo');
      await (client.transport as unknown as RecordingTransport).inner.close();
    } finally {
      await client.close();
    }
    expectValidServerMessages(version, recorder.received);
  });

  it('serves a stateless server: every POST on its own, no session id', async () => {
    const { url } = await serve({ stateless: true });
    const { client, recorder } = await connectSdkClient(new StreamableHTTPClientTransport(url), { protocolVersion: '2025-11-25' });
    try {
      expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'a' } }))).toBe('a');
      expect(textOf(await client.callTool({ name: 'whoami' }))).toBe('stateless');
      const asked = await client.callTool({ name: 'ask', arguments: { text: 'x' } });
      expect(asked.isError).toBe(true);
      expect(textOf(asked)).toContain('without sessions (stateless HTTP), so a request cannot ask the client to sample');
      expect((recorder.inner as StreamableHTTPClientTransport).sessionId).toBeUndefined();
    } finally {
      await client.close();
    }
    expectValidServerMessages('2025-11-25', recorder.received);
    const get = await fetch(url, { headers: { accept: 'text/event-stream' } });
    expect(get.status).toBe(405);
  });

  it('serves the 2024-11-05 HTTP+SSE transport beside it', async () => {
    const { url } = await serve();
    const sseUrl = new URL('/sse', url);
    const { client, recorder } = await connectSdkClient(new SSEClientTransport(sseUrl), { protocolVersion: '2024-11-05' });
    try {
      expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'legacy' } }))).toBe('legacy');
      expect((await client.readResource({ uri: 'http://fixture/status' })).contents[0]).toEqual({ uri: 'http://fixture/status', mimeType: 'application/json', text: '{"ok":true}' });
    } finally {
      await client.close();
    }
    expectValidServerMessages('2024-11-05', recorder.received);
  });
});

describe('Streamable HTTP, message by message', () => {
  async function session(url: URL) {
    const response = await post(url, initialize);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('application/json');
    const sessionId = response.headers.get('mcp-session-id')!;
    expect(sessionId).toMatch(/^[\x21-\x7e]+$/);
    const notified = await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-session-id': sessionId });
    expect(notified.status).toBe(202);
    return sessionId;
  }

  it('refuses a missing session id (400), an unknown or ended one (404)', async () => {
    const { url } = await serve();
    const ping = { jsonrpc: '2.0', id: 2, method: 'ping' };
    expect((await post(url, ping)).status).toBe(400);
    expect((await post(url, ping, { 'mcp-session-id': 'nope' })).status).toBe(404);
    const sessionId = await session(url);
    const ok = await post(url, ping, { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' });
    expect(await ok.json()).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
    const bad = await post(url, ping, { 'mcp-session-id': sessionId, 'mcp-protocol-version': '1999-01-01' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toContain('unsupported MCP-Protocol-Version');
    expect((await fetch(url, { method: 'DELETE', headers: { 'mcp-session-id': sessionId } })).status).toBe(200);
    expect((await post(url, ping, { 'mcp-session-id': sessionId })).status).toBe(404);
  });

  it('refuses a bad Origin or Host (403), a wrong Accept (406), a large body (413), bad JSON (400 with -32700)', async () => {
    const { url } = await serve({ maxBodyBytes: 1000 });
    const evil = await post(url, initialize, { origin: 'https://evil.example' });
    expect(evil.status).toBe(403);
    expect(((await evil.json()) as { error: { message: string } }).error.message).toContain('Origin "https://evil.example" is not allowed');
    expect((await post(url, initialize, { origin: `http://localhost:${url.port}` })).status).toBe(200);
    const rebound = await new Promise<number>((resolve) => {
      const req = require('node:http').request({ host: '127.0.0.1', port: url.port, path: url.pathname, method: 'POST', headers: { host: 'attacker.example', 'content-type': 'application/json', accept: 'application/json, text/event-stream' } }, (res: { statusCode: number; resume(): void }) => {
        res.resume();
        resolve(res.statusCode);
      });
      req.end(JSON.stringify(initialize));
    });
    expect(rebound).toBe(403);
    expect((await post(url, initialize, { accept: 'application/json' })).status).toBe(406);
    expect((await post(url, { ...initialize, params: { ...initialize.params, pad: 'x'.repeat(2000) } })).status).toBe(413);
    const garbled = await post(url, '{"jsonrpc":');
    expect(garbled.status).toBe(400);
    expect(((await garbled.json()) as { error: { code: number } }).error.code).toBe(-32700);
  });

  it('keeps sessions apart', async () => {
    const { server, url } = await serve();
    const a = await session(url);
    const b = await session(url);
    expect(a).not.toBe(b);
    const streamA = await fetch(url, { headers: { accept: 'text/event-stream', 'mcp-session-id': a } });
    const readerA = streamA.body!.getReader();
    const streamB = await fetch(url, { headers: { accept: 'text/event-stream', 'mcp-session-id': b } });
    const readerB = streamB.body!.getReader();
    expect((await fetch(url, { headers: { accept: 'text/event-stream', 'mcp-session-id': a } })).status).toBe(409);
    // A subscription in session A: only A hears the update.
    await post(url, { jsonrpc: '2.0', id: 3, method: 'resources/subscribe', params: { uri: 'http://fixture/status' } }, { 'mcp-session-id': a });
    server.resources.notifyUpdated('http://fixture/status');
    const eventA = new TextDecoder().decode((await readerA.read()).value);
    expect(eventA).toContain('notifications/resources/updated');
    const nothing = await Promise.race([readerB.read().then(() => 'event'), new Promise((resolve) => setTimeout(() => resolve('silence'), 200))]);
    expect(nothing).toBe('silence');
    await readerA.cancel();
    await readerB.cancel();
  });

  it('streams a request with progress as SSE and replays a lost stream from Last-Event-ID', async () => {
    const { url } = await serve();
    const sessionId = await session(url);
    const headers = { 'mcp-session-id': sessionId };
    const response = await post(url, { jsonrpc: '2.0', id: 'w', method: 'tools/call', params: { name: 'work', arguments: { steps: 4 }, _meta: { progressToken: 'p' } } }, headers);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const reader = response.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    const firstId = /id: (\S+)/.exec(first)![1];
    expect(first).toContain('"progress":1');
    await reader.cancel(); // the connection drops after the first event
    await new Promise((resolve) => setTimeout(resolve, 100));
    const resumed = await fetch(url, { headers: { accept: 'text/event-stream', 'last-event-id': firstId, ...headers } });
    expect(resumed.status).toBe(200);
    const rest = await resumed.text();
    expect(rest).not.toContain('"progress":1,');
    expect(rest).toContain('"progress":4');
    expect(rest).toContain('"id":"w"');
    expect(rest).toContain('worked 4');
  });
});

describe('mounting', () => {
  async function check(url: URL) {
    const { client } = await connectSdkClient(new StreamableHTTPClientTransport(url), { protocolVersion: '2025-11-25' });
    try {
      expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'mounted' } }))).toBe('mounted');
    } finally {
      await client.close();
    }
  }

  it('mounts in node:http', async () => {
    const server = createHttpFixture();
    servers.push(server);
    const handler = server.httpHandler();
    const http = createServer((req, res) => void handler(req, res));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    try {
      await check(new URL(`http://127.0.0.1:${(http.address() as AddressInfo).port}/anything`));
    } finally {
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    }
  });

  it('mounts in Express, with or without express.json()', async () => {
    const server = createHttpFixture();
    servers.push(server);
    const handler = server.httpHandler();
    const app = express();
    app.all('/raw/mcp', (req, res) => void handler(req, res));
    app.post('/parsed/mcp', express.json(), (req, res) => void handler(req, res, req.body));
    app.all('/parsed/mcp', (req, res) => void handler(req, res));
    const http = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => http.once('listening', resolve));
    const port = (http.address() as AddressInfo).port;
    try {
      await check(new URL(`http://127.0.0.1:${port}/raw/mcp`));
      await check(new URL(`http://127.0.0.1:${port}/parsed/mcp`));
    } finally {
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    }
  });

  it('mounts in Fastify', async () => {
    const server = createHttpFixture();
    servers.push(server);
    const handler = server.httpHandler();
    const app = Fastify();
    app.all('/mcp', async (request, reply) => {
      reply.hijack();
      await handler(request.raw, reply.raw, request.body);
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      await check(new URL(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}/mcp`));
    } finally {
      await app.close();
    }
  });
});

/** The JSON-RPC response in a POST's answer, whether sent as JSON or on an SSE stream. */
async function responseOf(response: Response): Promise<{ id: unknown; result: { content: Array<{ text: string }> } }> {
  const text = await response.text();
  if (!(response.headers.get('content-type') ?? '').includes('text/event-stream')) return JSON.parse(text);
  const messages = [...text.matchAll(/^data: (.+)$/gm)].map((m) => JSON.parse(m[1]));
  return messages.find((m) => 'result' in m || 'error' in m);
}

describe('Streamable HTTP isolation and shutdown', () => {
  async function open(url: URL) {
    const response = await post(url, initialize);
    const sessionId = response.headers.get('mcp-session-id')!;
    await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-session-id': sessionId });
    return sessionId;
  }

  it("does not replay another session's stream", async () => {
    const { url } = await serve();
    const a = await open(url);
    const b = await open(url);
    const response = await post(url, { jsonrpc: '2.0', id: 'w', method: 'tools/call', params: { name: 'work', arguments: { steps: 2 }, _meta: { progressToken: 'p' } } }, { 'mcp-session-id': a });
    const text = await response.text();
    const eventId = /id: (\S+)/.exec(text)![1];
    const stolen = await fetch(url, { headers: { accept: 'text/event-stream', 'last-event-id': eventId, 'mcp-session-id': b } });
    expect(stolen.status).toBe(404);
    const own = await fetch(url, { headers: { accept: 'text/event-stream', 'last-event-id': eventId, 'mcp-session-id': a } });
    expect(own.status).toBe(200);
    expect(await own.text()).toContain('"progress":2');
  });

  it('refuses a request id that another POST of the session is still answering', async () => {
    const { url } = await serve();
    const sessionId = await open(url);
    const slow = post(url, { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'work', arguments: { steps: 10 } } }, { 'mcp-session-id': sessionId });
    await new Promise((resolve) => setTimeout(resolve, 10));
    const clash = await post(url, { jsonrpc: '2.0', id: 7, method: 'ping' }, { 'mcp-session-id': sessionId });
    expect(clash.status).toBe(409);
    const answer = await responseOf(await slow);
    expect(answer.id).toBe(7);
    expect(answer.result.content[0].text).toBe('worked 10');
  });

  it('answers a POST of invalid messages with 400', async () => {
    const { url } = await serve();
    const sessionId = await open(url);
    const response = await post(url, { jsonrpc: '2.0', id: 3 }, { 'mcp-session-id': sessionId });
    expect(response.status).toBe(400);
  });

  it('forgets a legacy SSE session when its stream closes', async () => {
    const { url } = await serve();
    const controller = new AbortController();
    const stream = await fetch(new URL('/sse', url), { headers: { accept: 'text/event-stream' }, signal: controller.signal });
    const reader = stream.body!.getReader();
    const endpoint = /data: (\S+)/.exec(new TextDecoder().decode((await reader.read()).value))![1];
    controller.abort();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const late = await post(new URL(endpoint, url), { jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(late.status).toBe(404);
  });

  it('lets in-flight stateless requests finish on close()', async () => {
    const { server, url } = await serve({ stateless: true });
    const call = post(url, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'work', arguments: { steps: 20 } } }, { 'mcp-protocol-version': '2025-11-25' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    await server.close();
    servers.splice(servers.indexOf(server), 1);
    const answer = await responseOf(await call);
    expect(answer.result.content[0].text).toBe('worked 20');
  });
});
