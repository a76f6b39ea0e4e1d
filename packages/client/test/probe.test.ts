/**
 * The client against hostile servers: a raw node:http server speaking Streamable HTTP by hand,
 * and a child process printing whatever it likes on stdout. Each test asserts the safe
 * behaviour: the client neither crashes, nor leaks, nor believes what it never asked for.
 */
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { Client, ConnectionClosedError, RequestTimeoutError, StdioClientTransport, StreamableHttpClientTransport } from '@typemcp/client';
import type { StreamableHttpClientOptions } from '@typemcp/client';

type Msg = Record<string, any>;

interface Seen {
  method: string;
  headers: http.IncomingHttpHeaders;
  body: any;
}

/** What a test's server does with one POSTed message (after the handshake it plays itself). */
type Handler = (message: Msg, res: http.ServerResponse, req: http.IncomingMessage) => void | Promise<void>;

interface Hostile {
  url: string;
  seen: Seen[];
  /** Messages the client POSTed (answers to the server's questions included). */
  posted: Msg[];
  close(): Promise<void>;
}

const HANDSHAKE = { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'hostile', version: '1' } };

/**
 * A server on 127.0.0.1 that plays the handshake (`initialize` with session `s1`, 202 for
 * notifications and answers, 405 for the GET stream, 200 for DELETE) or `server/discover`,
 * and hands every other request to `handle`; `onGet` answers GETs when given.
 */
async function hostile(handle: Handler, onGet?: (req: http.IncomingMessage, res: http.ServerResponse) => void): Promise<Hostile> {
  const seen: Seen[] = [];
  const posted: Msg[] = [];
  const server = http.createServer(async (req, res) => {
    let text = '';
    for await (const chunk of req) text += chunk;
    const body = text ? JSON.parse(text) : undefined;
    seen.push({ method: req.method!, headers: req.headers, body });
    if (req.method === 'GET') return onGet ? onGet(req, res) : void res.writeHead(405).end();
    if (req.method === 'DELETE') return void res.writeHead(200).end();
    posted.push(body);
    if (body.method === 'initialize') return json(res, { jsonrpc: '2.0', id: body.id, result: HANDSHAKE }, { 'mcp-session-id': 's1' });
    if (body.method === 'server/discover') return json(res, { jsonrpc: '2.0', id: body.id, result: { supportedVersions: ['2026-07-28'], capabilities: { tools: {} }, serverInfo: { name: 'hostile', version: '1' } } });
    if (body.method === undefined || body.id === undefined) return void res.writeHead(202).end();
    await handle(body, res, req);
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    seen,
    posted,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

function json(res: http.ServerResponse, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(200, { 'content-type': 'application/json', ...headers }).end(typeof body === 'string' ? body : JSON.stringify(body));
}

function sse(res: http.ServerResponse, headers: Record<string, string> = {}): http.ServerResponse {
  res.writeHead(200, { 'content-type': 'text/event-stream', ...headers });
  res.flushHeaders();
  return res;
}

const event = (message: unknown) => `data: ${JSON.stringify(message)}\n\n`;
const tick = (ms = 10) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => boolean, ms = 5000): Promise<void> {
  for (const end = Date.now() + ms; !check(); await tick()) if (Date.now() > end) throw new Error('timed out waiting');
}

let servers: Hostile[] = [];
let clients: Client[] = [];

async function connect(server: Hostile, options: ConstructorParameters<typeof Client>[0] = {}, transport: StreamableHttpClientOptions = {}): Promise<Client> {
  const client = await Client.connect(new StreamableHttpClientTransport(server.url, transport), { requestTimeoutMs: 5000, ...options });
  clients.push(client);
  return client;
}

async function serve(handle: Handler, onGet?: (req: http.IncomingMessage, res: http.ServerResponse) => void): Promise<Hostile> {
  const server = await hostile(handle, onGet);
  servers.push(server);
  return server;
}

afterEach(async () => {
  await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
  await Promise.all(servers.map((server) => server.close()));
  clients = [];
  servers = [];
});

describe('a hostile Streamable HTTP server', () => {
  it('cannot answer with ids the client never sent, nor answer one request twice', async () => {
    const server = await serve((message, res) => {
      if (message.method === 'ping') return json(res, { jsonrpc: '2.0', id: message.id, result: {} });
      const stream = sse(res);
      stream.write(event({ jsonrpc: '2.0', id: 999, result: { tools: [{ name: 'never-asked' }] } }));
      stream.write(event({ jsonrpc: '2.0', id: message.id + 1, result: { tools: [{ name: 'the-next-request' }] } }));
      stream.write(event({ jsonrpc: '2.0', id: message.id, result: { tools: [{ name: 'first', inputSchema: { type: 'object' } }] } }));
      stream.end(event({ jsonrpc: '2.0', id: message.id, result: { tools: [{ name: 'second', inputSchema: { type: 'object' } }] } }));
    });
    const client = await connect(server);
    expect((await client.listTools()).items.map((tool) => tool.name)).toEqual(['first']);
    await expect(client.ping()).resolves.toBeUndefined();
    // A JSON body answering another id only: the request fails instead of taking it.
    const other = await serve((message, res) => json(res, [{ jsonrpc: '2.0', id: 12345, result: { tools: [] } }]));
    const second = await connect(other);
    await expect(second.listTools()).rejects.toThrow(/without an answer to the request/);
  });

  it('cannot pollute prototypes through __proto__ or constructor keys in results', async () => {
    const evil = '{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}}}';
    const server = await serve((message, res) => {
      if (message.method === 'tools/list') {
        return json(res, `{"jsonrpc":"2.0","id":${message.id},"result":{"tools":[{"name":"t","inputSchema":{"type":"object","properties":{"__proto__":{"type":"string","x-mcp-header":"P"}}},${evil.slice(1)}],"nextCursor":"c1",${evil.slice(1)}}`);
      }
      json(res, `{"jsonrpc":"2.0","id":${message.id},"result":{"content":[${evil}],"structuredContent":${evil},${evil.slice(1)}}`);
    });
    const client = await connect(server);
    const page = await client.listTools();
    const result = await client.callTool('t', { a: 1 });
    expect(page.items[0].name).toBe('t');
    expect(result.content).toHaveLength(1);
    expect(({} as Msg).polluted).toBeUndefined();
    expect((Object.prototype as Msg).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
  });

  it('sends no header for a marked argument the caller did not give, even one named like an Object.prototype member', async () => {
    const server = await serve((message, res) => {
      if (message.method === 'tools/list') {
        const properties = { toString: { type: 'string', 'x-mcp-header': 'Shown' }, constructor: { type: 'string', 'x-mcp-header': 'Made' } };
        return json(res, { jsonrpc: '2.0', id: message.id, result: { tools: [{ name: 't', inputSchema: { type: 'object', properties } }] } });
      }
      json(res, { jsonrpc: '2.0', id: message.id, result: { content: [] } });
    });
    const client = await connect(server, { protocolVersion: '2026-07-28' });
    expect((await client.listTools()).items).toHaveLength(1);
    await client.callTool('t', {});
    const call = server.seen.find((each) => each.body?.method === 'tools/call')!;
    expect(Object.keys(call.headers).filter((name) => name.startsWith('mcp-param-'))).toEqual([]);
  });

  it('cannot inject HTTP headers through x-mcp-header marks or the values they carry', async () => {
    const server = await serve((message, res) => {
      if (message.method === 'tools/list') {
        return json(res, {
          jsonrpc: '2.0',
          id: message.id,
          result: {
            tools: [
              { name: 'crlf-mark', inputSchema: { type: 'object', properties: { a: { type: 'string', 'x-mcp-header': 'A\r\nInjected: 1' } } } },
              { name: 'unicode-mark', inputSchema: { type: 'object', properties: { a: { type: 'string', 'x-mcp-header': 'Ä' } } } },
              { name: 'fine', inputSchema: { type: 'object', properties: { a: { type: 'string', 'x-mcp-header': 'Region' } } } },
            ],
          },
        });
      }
      json(res, { jsonrpc: '2.0', id: message.id, result: { content: [] } });
    });
    const client = await connect(server, { protocolVersion: '2026-07-28' });
    expect((await client.listTools()).items.map((tool) => tool.name)).toEqual(['fine']);
    await client.callTool('fine', { a: 'x\r\nInjected: 1' });
    await client.callTool('crlf-mark', { a: 'y' });
    await client.callTool('fine\r\nInjected: 2', { a: 'Zürich' });
    const calls = server.seen.filter((each) => each.body?.method === 'tools/call');
    expect(calls).toHaveLength(3);
    for (const call of calls) expect(call.headers.injected).toBeUndefined();
    expect(calls[0].headers['mcp-param-region']).toBe(`=?base64?${btoa('x\r\nInjected: 1')}?=`);
    expect(Object.keys(calls[1].headers).filter((name) => name.startsWith('mcp-param-'))).toEqual([]);
    expect(calls[2].headers['mcp-name']).toBe(`=?base64?${btoa('fine\r\nInjected: 2')}?=`);
  });

  it('enforces maxMessageBytes on a JSON answer, an endless JSON body, and one endless SSE event', async () => {
    let endless: http.ServerResponse | undefined;
    const server = await serve((message, res) => {
      const name = message.params?.name;
      if (name === 'big') return json(res, { jsonrpc: '2.0', id: message.id, result: { content: [{ type: 'text', text: 'x'.repeat(300_000) }] } });
      if (name === 'endless-json') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write(`{"jsonrpc":"2.0","id":${message.id},"result":{"content":[{"type":"text","text":"`);
        endless = res;
        const more = () => res.writableEnded || res.destroyed || res.write('x'.repeat(16_384), () => setImmediate(more));
        return void more();
      }
      const stream = sse(res);
      stream.write('data: {"jsonrpc":"2.0","id":' + message.id + ',"result":{"content":[{"type":"text","text":"');
      const more = () => res.destroyed || stream.write('y'.repeat(16_384), () => setImmediate(more));
      more();
    });
    const client = await connect(server, {}, { maxMessageBytes: 100_000 });
    await expect(client.callTool('big')).rejects.toThrow(/larger than 100000 bytes/);
    await expect(client.callTool('endless-json')).rejects.toThrow(/larger than 100000 bytes/);
    await until(() => endless!.destroyed);
    await expect(client.callTool('endless-sse')).rejects.toThrow(/larger than 100000 bytes/);
    // Many short data lines of one event that never ends count as one message too.
    const lines = await serve((message, res) => {
      const stream = sse(res);
      const more = () => res.destroyed || stream.write('data: zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz\n'.repeat(500), () => setImmediate(more));
      more();
    });
    const other = await connect(lines, {}, { maxMessageBytes: 100_000 });
    await expect(other.ping()).rejects.toThrow(/larger than 100000 bytes/);
  });

  it('stops waiting on an SSE stream that never answers (only pings and notifications): timeout, and the stream is closed', async () => {
    let stream: http.ServerResponse | undefined;
    const server = await serve((message, res) => {
      stream = sse(res);
      const timer = setInterval(() => stream!.write(`: ping\n\n${event({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'still here' } })}`), 20);
      res.on('close', () => clearInterval(timer));
    });
    const client = await connect(server);
    await expect(client.ping({ timeoutMs: 300 })).rejects.toBeInstanceOf(RequestTimeoutError);
    await until(() => stream!.destroyed);
    expect(server.posted.some((each) => each.method === 'notifications/cancelled')).toBe(true);
  });

  it('enforces maxResumptions against a server that ends every stream early with retry: 0', async () => {
    let gets = 0;
    const server = await serve(
      (message, res) => void sse(res).end('id: e1\nretry: 0\ndata: \n\n'),
      (req, res) => {
        // The session's own GET stream is not offered; the resumptions are counted.
        if (req.headers['last-event-id'] === undefined) return void res.writeHead(405).end();
        gets++;
        sse(res).end(`id: e${gets + 1}\nretry: 0\n\n`);
      },
    );
    const client = await connect(server, {}, { maxResumptions: 3 });
    await expect(client.ping()).rejects.toBeInstanceOf(ConnectionClosedError);
    expect(gets).toBe(3);
    expect(server.seen.filter((each) => each.headers['last-event-id'] !== undefined).map((each) => each.headers['last-event-id'])).toEqual(['e1', 'e2', 'e3']);
  });

  it('leaves no timer behind when a stream asks for a retry of 24 days and the client closes', async () => {
    const server = await serve((message, res) => void sse(res).end('id: e1\nretry: 2147483647\n\n'));
    const client = await connect(server);
    const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    const before = timers();
    const ping = client.ping({ timeoutMs: 200 });
    await expect(ping).rejects.toBeInstanceOf(RequestTimeoutError);
    await client.close();
    await tick(50);
    expect(timers()).toBeLessThanOrEqual(before);
  });

  it('gives up an input_required loop after maxInputRounds, and never answers a question it cannot', async () => {
    const server = await serve((message, res) => {
      const question = message.method === 'tools/list' ? { method: 'roots/list', params: {} } : { method: 'elicitation/create', params: { message: 'your password?', requestedSchema: { type: 'object', properties: {} } } };
      json(res, { jsonrpc: '2.0', id: message.id, result: { resultType: 'input_required', inputRequests: { q: question }, requestState: 'again' } });
    });
    const client = await connect(server, { protocolVersion: '2026-07-28', maxInputRounds: 3, onRoots: [{ uri: 'file:///tmp', name: 'tmp' }] });
    await expect(client.listTools()).rejects.toThrow(/still asked for input after 3 rounds/);
    expect(server.posted.filter((each) => each.method === 'tools/list')).toHaveLength(3);
    // No onElicit: the call fails with -32601 and is not retried with an invented answer.
    await expect(client.callTool('t')).rejects.toMatchObject({ code: -32601 });
    expect(server.posted.filter((each) => each.method === 'tools/call')).toHaveLength(1);
  });

  it('answers questions it has no handler for (sampling, elicitation, roots, unknown) with JSON-RPC errors, and lives on', async () => {
    const server = await serve((message, res) => {
      if (message.method === 'ping') return json(res, { jsonrpc: '2.0', id: message.id, result: {} });
      const stream = sse(res);
      stream.write(event({ jsonrpc: '2.0', id: 's1', method: 'sampling/createMessage', params: { messages: [], maxTokens: 1 } }));
      stream.write(event({ jsonrpc: '2.0', id: 's2', method: 'elicitation/create', params: { message: 'x' } }));
      stream.write(event({ jsonrpc: '2.0', id: 's3', method: 'roots/list' }));
      stream.write(event({ jsonrpc: '2.0', id: 's4', method: 'evil/unknown', params: { __proto__: { polluted: 1 } } }));
      stream.write(event({ jsonrpc: '2.0', id: 's5', method: 'constructor' }));
      setTimeout(() => stream.end(event({ jsonrpc: '2.0', id: message.id, result: { tools: [] } })), 200);
    });
    const client = await connect(server);
    expect((await client.listTools()).items).toEqual([]);
    await until(() => server.posted.filter((each) => typeof each.id === 'string' && 'error' in each).length === 5);
    const answers = Object.fromEntries(server.posted.filter((each) => typeof each.id === 'string').map((each) => [each.id, each.error.code]));
    expect(answers).toEqual({ s1: -32601, s2: -32601, s3: -32601, s4: -32601, s5: -32601 });
    await expect(client.ping()).resolves.toBeUndefined();
  });

  it('takes a flood of notifications before the answer without losing the answer', async () => {
    const server = await serve((message, res) => {
      const stream = sse(res);
      stream.write(event({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'flood' } }).repeat(20_000));
      stream.end(event({ jsonrpc: '2.0', id: message.id, result: {} }));
    });
    let heard = 0;
    const client = await connect(server, { onNotification: () => void heard++ });
    await expect(client.ping()).resolves.toBeUndefined();
    expect(heard).toBe(20_000);
  });

  it('does not connect through a session id carrying CR/LF, nor one too large to read', async () => {
    for (const header of ['Mcp-Session-Id: a\rInjected: 1', `Mcp-Session-Id: ${'s'.repeat(100_000)}`]) {
      const requests: string[] = [];
      const server = net.createServer((socket) => {
        socket.on('error', () => undefined);
        socket.on('data', (chunk) => {
          requests.push(chunk.toString('latin1'));
          const body = JSON.stringify({ jsonrpc: '2.0', id: 1, result: HANDSHAKE });
          socket.end(`HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n${header}\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`);
        });
      });
      server.listen(0, '127.0.0.1');
      await new Promise((resolve) => server.once('listening', resolve));
      try {
        const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
        await expect(Client.connect(new StreamableHttpClientTransport(url), { requestTimeoutMs: 2000 })).rejects.toThrow();
        expect(requests.join('')).not.toMatch(/injected/i);
        expect(requests).toHaveLength(1);
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
    }
  });

  it('does not follow a redirect to another origin with its headers or the request body', async () => {
    const elsewhere: Seen[] = [];
    const other = http.createServer((req, res) => {
      elsewhere.push({ method: req.method!, headers: req.headers, body: undefined });
      json(res, { jsonrpc: '2.0', id: 1, result: HANDSHAKE });
    });
    other.listen(0, '127.0.0.1');
    await new Promise((resolve) => other.once('listening', resolve));
    const redirecting = http.createServer((req, res) => res.writeHead(307, { location: `http://localhost:${(other.address() as AddressInfo).port}/mcp` }).end());
    redirecting.listen(0, '127.0.0.1');
    await new Promise((resolve) => redirecting.once('listening', resolve));
    try {
      const url = `http://127.0.0.1:${(redirecting.address() as AddressInfo).port}/mcp`;
      const transport = new StreamableHttpClientTransport(url, { headers: { authorization: 'Bearer secret-token', 'x-api-key': 'secret-key' } });
      await expect(Client.connect(transport, { requestTimeoutMs: 2000 })).rejects.toThrow(/redirect/i);
      expect(elsewhere).toEqual([]);
    } finally {
      await Promise.all([other, redirecting].map((server) => new Promise((resolve) => server.close(resolve))));
    }
  });

  it('rejects every pending request when closed in the middle of them, and ends their streams', async () => {
    const streams: http.ServerResponse[] = [];
    const server = await serve((message, res) => void streams.push(sse(res)));
    const client = await connect(server);
    const pending = Promise.allSettled([client.ping(), client.listTools(), client.callTool('slow')]);
    await until(() => streams.length === 3);
    await client.close();
    for (const each of await pending) expect(each).toMatchObject({ status: 'rejected', reason: expect.any(ConnectionClosedError) });
    await until(() => streams.every((stream) => stream.destroyed));
    expect(server.seen.some((each) => each.method === 'DELETE')).toBe(true);
    await expect(client.ping()).rejects.toThrow();
  });
});

describe('a hostile stdio server', () => {
  /** A child process running `script` (Node); it reads the client's lines on stdin. */
  async function child(script: string, options: ConstructorParameters<typeof Client>[0] = {}): Promise<{ client: Client; transport: StdioClientTransport }> {
    const prelude = `
      const out = (m) => process.stdout.write(typeof m === 'string' ? m : JSON.stringify(m) + '\\n');
      let buffered = '';
      const handlers = [];
      process.stdin.on('data', (chunk) => {
        buffered += chunk;
        let i;
        while ((i = buffered.indexOf('\\n')) >= 0) {
          const line = buffered.slice(0, i);
          buffered = buffered.slice(i + 1);
          if (!line.trim()) continue;
          const m = JSON.parse(line);
          if (m.method === 'initialize') out({ jsonrpc: '2.0', id: m.id, result: ${JSON.stringify(HANDSHAKE)} });
          else for (const h of handlers) h(m);
        }
      });
      const on = (h) => handlers.push(h);
    `;
    const transport = new StdioClientTransport({ command: process.execPath, args: ['-e', prelude + script], stderr: 'ignore' });
    const client = await Client.connect(transport, { requestTimeoutMs: 5000, ...options });
    clients.push(client);
    return { client, transport };
  }

  it('skips lines that are not JSON, puts partial lines together, and skips a gigantic line', async () => {
    const { client } = await child(`
      on((m) => {
        if (m.method !== 'ping') return;
        out('not json at all\\n');
        out('{"jsonrpc":"2.0","id":' + m.id + ',"res');
        setTimeout(() => out('ult":{}}\\n'), 50);
      });
      on((m) => {
        if (m.method !== 'tools/list') return;
        out('{"jsonrpc":"2.0","id":' + m.id + ',"result":{"tools":[{"name":"' + 'g'.repeat(5 * 1024 * 1024) + '"}]}}\\n');
        out({ jsonrpc: '2.0', id: m.id, result: { tools: [{ name: 'small', inputSchema: { type: 'object' } }] } });
      });
    `);
    await expect(client.ping()).resolves.toBeUndefined();
    expect((await client.listTools()).items.map((tool) => tool.name)).toEqual(['small']);
    await expect(client.ping()).resolves.toBeUndefined();
  });

  it('answers a question without a handler with -32601 and keeps going', async () => {
    const { client } = await child(`
      on((m) => {
        if (m.method === 'ping') out({ jsonrpc: '2.0', id: 'q1', method: 'sampling/createMessage', params: { messages: [], maxTokens: 1 } });
        if (m.id === 'q1') out({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: m } });
        if (m.id === 'q1') out({ jsonrpc: '2.0', id: 2, result: {} });
      });
    `);
    const heard: Msg[] = [];
    client.on('notifications/message', (notification) => void heard.push(notification.params!.data as Msg));
    await expect(client.ping()).resolves.toBeUndefined();
    expect(heard[0]).toMatchObject({ id: 'q1', error: { code: -32601 } });
  });

  it('rejects pending requests when closed in the middle of them, and the process is gone', async () => {
    const { client, transport } = await child(`process.stdin.on('end', () => setTimeout(() => process.exit(0), 100));`);
    const pending = Promise.allSettled([client.ping(), client.listTools()]);
    await client.close();
    for (const each of await pending) expect(each).toMatchObject({ status: 'rejected', reason: expect.any(ConnectionClosedError) });
    const pid = transport.pid!;
    await until(() => {
      try {
        process.kill(pid, 0);
        return false;
      } catch {
        return true;
      }
    });
  });

  it('rejects pending requests when the server dies in the middle of them', async () => {
    const { client } = await child(`on((m) => { if (m.method === 'tools/list') process.exit(3); });`);
    const pending = Promise.allSettled([client.ping(), client.listTools()]);
    for (const each of await pending) expect(each).toMatchObject({ status: 'rejected', reason: expect.any(Error) });
    expect(client.isClosed).toBe(true);
  });
});
