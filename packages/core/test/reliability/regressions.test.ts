/**
 * Every class of input that once crashed the server, hung a request or leaked a resource,
 * over the transport it was found on.
 */
import 'reflect-metadata';
import { PassThrough } from 'node:stream';
import { IsString } from 'class-validator';
import { Context, McpServer, StdioTransport, Tool } from '@typemcp/core';

class EchoInput {
  @IsString() text!: string;
}

class Tools {
  @Tool({ description: 'Echoes' })
  echo(input: EchoInput): string {
    return input.text;
  }

  @Tool({ description: 'Never ends and ignores cancellation' })
  stubborn(): Promise<string> {
    return new Promise(() => undefined);
  }

  @Tool({ description: 'Ends when cancelled' })
  async patient(ctx: Context): Promise<string> {
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
    return 'cancelled';
  }
}

class Unencodable {
  @Tool({ description: 'Returns a result JSON cannot encode' })
  unencodable(): Record<string, unknown> {
    return { content: [{ type: 'text', text: 'big' }], _meta: { count: BigInt(1) } };
  }
}

type Message = Record<string, any>;

/** A server on a real StdioTransport over in-process pipes; lines in, parsed lines out. */
async function stdioServer(options: ConstructorParameters<typeof McpServer>[0] extends infer O ? Partial<O> : never = {}, maxLineLength?: number) {
  const input = new PassThrough();
  const output = new PassThrough();
  const errors: string[] = [];
  const server = new McpServer({ name: 'reliable', version: '1', providers: [Tools], onError: (what) => void errors.push(what), ...options });
  await server.connect(new StdioTransport({ input, output, guardStdout: false, maxLineLength }));
  const received: Message[] = [];
  let buffer = '';
  output.setEncoding('utf8');
  output.on('data', (chunk: string) => {
    buffer += chunk;
    let newline: number;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      received.push(JSON.parse(buffer.slice(0, newline)));
      buffer = buffer.slice(newline + 1);
    }
  });
  const write = (value: unknown) => input.write(`${typeof value === 'string' ? value : JSON.stringify(value)}\n`);
  const waitFor = async (match: (m: Message) => boolean, timeoutMs = 3000): Promise<Message> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = received.find(match);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no matching message; got ${JSON.stringify(received).slice(0, 500)}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };
  const request = async (id: number | string, method: string, params?: Message) => {
    write({ jsonrpc: '2.0', id, method, params });
    return waitFor((m) => m.id === id && !('method' in m));
  };
  write({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'r', version: '1' } } });
  await waitFor((m) => m.id === 'init');
  write({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return { server, input, received, errors, write, waitFor, request };
}

const deepJson = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

describe('stdio', () => {
  it('survives a cancellation whose reason cannot become a string', async () => {
    const s = await stdioServer();
    for (const [id, reason] of [
      [1, '{"toString":1}'],
      [2, deepJson(100_000)],
      [3, '{"toString":{"valueOf":1}}'],
    ] as const) {
      s.write({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'patient' } });
      await new Promise((resolve) => setTimeout(resolve, 5));
      s.write(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":${id},"reason":${reason}}}`);
    }
    const after = await s.request(9, 'tools/call', { name: 'echo', arguments: { text: 'alive' } });
    expect(after.result.content[0].text).toBe('alive');
    expect(s.received.filter((m) => [1, 2, 3].includes(m.id))).toEqual([]);
    await s.server.close();
  });

  it('frees the id of a cancelled request even when its handler never ends', async () => {
    const s = await stdioServer();
    s.write({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'stubborn' } });
    await new Promise((resolve) => setTimeout(resolve, 5));
    s.write({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } });
    const reused = await s.request(7, 'tools/call', { name: 'echo', arguments: { text: 'again' } });
    expect(reused.result.content[0].text).toBe('again');
    await s.server.close();
  });

  it.each([
    ['cursor', 'tools/list', 'cursor'],
    ['level', 'logging/setLevel', 'level'],
    ['tool name', 'tools/call', 'name'],
  ])('answers a deeply nested %s with -32602, not -32603', async (_label, method, field) => {
    const s = await stdioServer();
    s.write(`{"jsonrpc":"2.0","id":1,"method":"${method}","params":{"${field}":${deepJson(50_000)}}}`);
    const answer = await s.waitFor((m) => m.id === 1);
    expect(answer.error.code).toBe(-32602);
    expect(answer.error.message.length).toBeLessThan(400);
    await s.server.close();
  });

  it('echoes a huge client value once and cut, in message and data', async () => {
    const s = await stdioServer();
    const name = 'x'.repeat(1_000_000);
    const answer = await s.request(1, 'tools/call', { name });
    expect(answer.error.code).toBe(-32602);
    expect(JSON.stringify(answer).length).toBeLessThan(1_000);
    expect(answer.error.message).toContain('(1000000 characters)');
    const method = await s.request(2, 'm'.repeat(1_000_000));
    expect(JSON.stringify(method).length).toBeLessThan(1_000);
    await s.server.close();
  });

  it('skips a line longer than maxLineLength with -32600 and reads the next one', async () => {
    const s = await stdioServer({}, 1000);
    s.input.write(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"${'y'.repeat(600)}`);
    s.input.write(`${'y'.repeat(600)}"}}}\n`);
    const skipped = await s.waitFor((m) => m.error?.code === -32600);
    expect(skipped.error.message).toMatch(/longer than 1000 characters/);
    expect(skipped.id).toBeUndefined();
    const next = await s.request(2, 'tools/call', { name: 'echo', arguments: { text: 'short' } });
    expect(next.result.content[0].text).toBe('short');
    await s.server.close();
  });

  it('reports responses to unknown ids at a bounded rate', async () => {
    const s = await stdioServer();
    for (let i = 0; i < 500; i++) s.write({ jsonrpc: '2.0', id: `ghost-${i}`, result: {} });
    await s.request(1, 'tools/list');
    expect(s.errors.length).toBeGreaterThan(0);
    expect(s.errors.length).toBeLessThanOrEqual(25);
    await s.server.close();
  });

  it('refuses requests past maxRequestsInFlight and batches past maxBatchSize', async () => {
    const s = await stdioServer({ maxRequestsInFlight: 2, maxBatchSize: 3 });
    s.write({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'patient' } });
    s.write({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'patient' } });
    const third = await s.request(3, 'tools/list');
    expect(third.error).toMatchObject({ code: -32600, message: expect.stringMatching(/Too many requests in progress \(2\)/) });
    s.write({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } });
    // Its handler ends on the abort; a slot is free once it has.
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect((await s.request(4, 'tools/list')).result.tools).toHaveLength(3);
    s.write([1, 2, 3, 4].map((n) => ({ jsonrpc: '2.0', id: 10 + n, method: 'tools/list' })));
    const refused = await s.waitFor((m) => m.error?.message?.includes('a batch of 4 messages'));
    expect(refused.error.code).toBe(-32600);
    await s.server.close();
  });

  it('refuses invalid limits at construction', () => {
    expect(() => new McpServer({ name: 'x', version: '1', maxRequestsInFlight: 0 })).toThrow(/maxRequestsInFlight must be a positive integer/);
    expect(() => new McpServer({ name: 'x', version: '1', maxBatchSize: 1.5 })).toThrow(/maxBatchSize must be a positive integer/);
    expect(() => new StdioTransport({ maxLineLength: -1 })).toThrow(/maxLineLength must be a positive integer/);
  });
});

describe('Streamable HTTP with sessions', () => {
  let server: McpServer;
  let url: string;
  const post = (body: unknown, headers: Record<string, string> = {}, signal?: AbortSignal) =>
    fetch(url, { method: 'POST', signal, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(body) });
  const initialize = (version = '2025-03-26') =>
    post({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'h', version: '1' } } });
  async function session(version = '2025-03-26') {
    const response = await initialize(version);
    const id = response.headers.get('mcp-session-id')!;
    await response.json();
    const headers = { 'mcp-session-id': id, 'mcp-protocol-version': version };
    await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
    return headers;
  }

  afterEach(() => server.close());
  async function start(options: Record<string, unknown> = {}) {
    server = new McpServer({ name: 'http-reliable', version: '1', providers: [Tools], onError: () => undefined });
    ({ url } = await server.listen({ transport: 'http', port: 0, handleSignals: false, ...options }));
  }

  it('answers the POST of a request the client cancelled, and the session is not left busy', async () => {
    await start();
    const headers = await session();
    const pending = post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'stubborn' } }, headers);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const cancel = await post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, reason: { toString: 1 } } }, headers);
    expect(cancel.status).toBe(202);
    const answered = await pending;
    expect(answered.status).toBe(202);
    expect(await answered.text()).toBe('');
    const closing = Date.now();
    await server.close();
    // The session had nothing in progress: closing did not wait out the grace period.
    expect(Date.now() - closing).toBeLessThan(4_000);
    await start();
  });

  it.each([1.5, null, {}, [], true])('refuses a request id of %j with 400 -32600, in a batch or alone', async (id) => {
    await start();
    const headers = await session();
    const batch = await post([{ jsonrpc: '2.0', id, method: 'tools/list' }, { jsonrpc: '2.0', id: 'ok', method: 'tools/list' }], headers);
    expect(batch.status).toBe(400);
    expect(((await batch.json()) as Message).error.code).toBe(-32600);
    const alone = await post({ jsonrpc: '2.0', id, method: 'tools/list' }, headers);
    expect(alone.status).toBe(400);
    const valid = await post({ jsonrpc: '2.0', id: 'ok', method: 'tools/list' }, headers);
    expect(((await valid.json()) as Message).result.tools).toHaveLength(3);
  });

  it('keeps at most maxSessions: the one idle the longest goes first', async () => {
    await start({ maxSessions: 2 });
    const first = await session();
    const second = await session();
    await post({ jsonrpc: '2.0', id: 5, method: 'tools/list' }, second);
    const third = await session();
    expect((await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, first)).status).toBe(404);
    expect((await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, second)).status).toBe(200);
    expect((await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, third)).status).toBe(200);
    expect(() => server.httpHandler({ maxSessions: 0 })).toThrow(/maxSessions must be a positive integer/);
  });

  it('answers initialize with 503 when every session is busy', async () => {
    await start({ maxSessions: 1 });
    const only = await session();
    const busy = post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'patient' } }, only);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await initialize()).status).toBe(503);
    await post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } }, only);
    await busy;
  });

  it('keeps no session for a refused initialize', async () => {
    await start({ maxSessions: 1 });
    const refused = await post({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-03-26' } });
    expect(((await refused.json()) as Message).error.code).toBe(-32602);
    const id = refused.headers.get('mcp-session-id')!;
    expect((await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { 'mcp-session-id': id })).status).toBe(404);
    // The cap of one is still free for a real session.
    const real = await session();
    expect((await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, real)).status).toBe(200);
  });
});

const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } };

describe('more classes: the server survives and answers', () => {
  class Asker {
    @Tool({ description: 'Asks a question' })
    async ask(ctx: Context): Promise<string> {
      const answer = await ctx.elicit('Name?', { requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
      return answer.action;
    }
  }

  it('refuses client data too deep for a requestState with -32602 instead of crashing', async () => {
    const s = await stdioServer({ providers: [Tools, Asker] });
    const deep = deepJson(100_000);
    s.write(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask","junk":${deep},"_meta":${JSON.stringify(META)}}}`);
    expect((await s.waitFor((m) => m.id === 1)).error.code).toBe(-32602);
    s.write(
      `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask","inputResponses":{"elicitation-1":{"action":"accept","content":{},"junk":${deep}}},"_meta":${JSON.stringify(META)}}}`,
    );
    const second = await s.waitFor((m) => m.id === 2);
    expect(second.error?.code ?? second.result?.resultType).toBeDefined();
    expect((await s.request(3, 'tools/call', { name: 'echo', arguments: { text: 'alive' } })).result.content[0].text).toBe('alive');
    await s.server.close();
  });

  it('answers -32602 for a malformed answer in inputResponses', async () => {
    const s = await stdioServer({ providers: [Tools, Asker] });
    const answer = await s.request(1, 'tools/call', { name: 'ask', inputResponses: { 'elicitation-1': { action: 'bogus' } }, _meta: META });
    expect(answer.error).toMatchObject({ code: -32602, message: expect.stringMatching(/^Invalid input response/) });
    await s.server.close();
  });

  it('answers -32603 when middleware or a route produces no result object, and keeps serving', async () => {
    const s = await stdioServer();
    s.server.use(async (_ctx, next) => {
      await next(); // forgets to return the result
    });
    const answer = await s.request(1, 'tools/list');
    expect(answer.error.code).toBe(-32603);
    expect(s.errors).toContain('"tools/list" failed');
    await s.server.close();
    const plugged = new McpServer({ name: 'p', version: '1', onError: () => undefined }).plugin({ name: 'empty', register: (host) => host.route('x/empty', () => undefined as never) });
    const input = new PassThrough();
    const output = new PassThrough();
    await plugged.connect(new StdioTransport({ input, output, guardStdout: false }));
    const lines: Message[] = [];
    output.on('data', (chunk: Buffer) => lines.push(...chunk.toString().trim().split('\n').map((l) => JSON.parse(l))));
    input.write('{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}\n');
    input.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n{"jsonrpc":"2.0","id":1,"method":"x/empty"}\n');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(lines.find((m) => m.id === 1)?.error.code).toBe(-32603);
    await plugged.close();
  });

  it('answers a batch in which one response cannot be encoded: that one with -32603, the others as they were', async () => {
    const s = await stdioServer({ providers: [Tools, Unencodable] });
    s.write([
      { jsonrpc: '2.0', id: 'a', method: 'tools/call', params: { name: 'echo', arguments: { text: 'kept' } } },
      { jsonrpc: '2.0', id: 'b', method: 'tools/call', params: { name: 'unencodable' } },
    ]);
    const batch = (await s.waitFor((m) => Array.isArray(m))) as unknown as Message[];
    expect(batch).toEqual([
      { jsonrpc: '2.0', id: 'a', result: { content: [{ type: 'text', text: 'kept' }] } },
      { jsonrpc: '2.0', id: 'b', error: { code: -32603, message: 'Internal error: the response could not be encoded' } },
    ]);
    expect(s.errors).toContain('send failed');
    // Alone, it is answered the same way.
    expect((await s.request(3, 'tools/call', { name: 'unencodable' })).error.code).toBe(-32603);
    await s.server.close();
  });

  it('counts handlers that ignore cancellation against maxRequestsInFlight', async () => {
    const s = await stdioServer({ maxRequestsInFlight: 2 });
    for (const id of [1, 2, 3]) {
      s.write({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'stubborn' } });
      s.write({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id } });
    }
    const third = await s.waitFor((m) => m.id === 3);
    expect(third.error.message).toMatch(/Too many requests in progress/);
    await s.server.close();
  });

  it('closes at end of input even with a subscriptions/listen stream open', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    output.resume();
    const server = new McpServer({ name: 'listening', version: '1', providers: [Tools] });
    const transport = new StdioTransport({ input, output, guardStdout: false });
    const closed = new Promise<void>((resolve) => {
      const original = transport.close.bind(transport);
      transport.close = async () => {
        await original();
        resolve();
      };
    });
    await server.connect(transport);
    input.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'subscriptions/listen', params: { _meta: META, notifications: { toolsListChanged: true } } })}\n`);
    await new Promise((resolve) => setTimeout(resolve, 10));
    input.end();
    await closed;
    await server.close();
  });

  it('bounds the list of unknown tool arguments', async () => {
    class Bare {
      @Tool({ description: 'Takes nothing' })
      bare(): string {
        return 'bare';
      }
    }
    const s = await stdioServer({ providers: [Bare] });
    const args: Record<string, number> = { ['k'.repeat(500_000)]: 1 };
    for (let i = 0; i < 50_000; i++) args[`key${i}`] = i;
    const answer = await s.request(1, 'tools/call', { name: 'bare', arguments: args });
    expect(answer.result.isError).toBe(true);
    expect(JSON.stringify(answer).length).toBeLessThan(5_000);
    expect(answer.result.content[0].text).toContain('more unknown properties');
    await s.server.close();
  });
});

describe('Streamable HTTP, more classes', () => {
  let server: McpServer;
  afterEach(() => server.close());

  it('refuses initialize sent as a notification, and keeps no busy session', async () => {
    server = new McpServer({ name: 'h', version: '1', providers: [Tools] });
    const { url } = await server.listen({ transport: 'http', port: 0, handleSignals: false, maxSessions: 1 });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const notification = await fetch(url, { method: 'POST', headers, body: '{"jsonrpc":"2.0","method":"initialize","params":{}}' });
    expect(notification.status).toBe(400);
    const real = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } }),
    });
    expect(real.status).toBe(200);
  });

  it('closes the connection of a body that arrives too slowly, with its 408', async () => {
    server = new McpServer({ name: 'h', version: '1', providers: [Tools] });
    const { port } = await server.listen({ transport: 'http', port: 0, handleSignals: false, bodyTimeoutMs: 200 });
    const { connect } = await import('node:net');
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
    const closed = new Promise<boolean>((resolve) => {
      socket.once('close', () => resolve(true));
      setTimeout(() => resolve(false), 3_000);
    });
    // Headers promise 100 bytes; the body trickles and stops.
    socket.write('POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{"jsonrpc"');
    const wasClosed = await closed;
    socket.destroy();
    expect(received).toMatch(/^HTTP\/1\.1 408 /);
    expect(received.toLowerCase()).toContain('connection: close');
    expect(wasClosed).toBe(true);
  });

  it('answers a 2026-07-28 batch -32600 (batches are 2025-03-26 only), not "Mcp-Session-Id header is required"', async () => {
    server = new McpServer({ name: 'h', version: '1', providers: [Tools] });
    const { url } = await server.listen({ transport: 'http', port: 0, handleSignals: false });
    const modern = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: META } };
    const bodies = [[modern], [modern, { ...modern, id: 2 }], [{ jsonrpc: '2.0', id: 1, method: 'tools/list' }]];
    for (const [i, body] of bodies.entries()) {
      // The last batch names its revision only in the header.
      const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28' };
      const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
      expect({ i, status: response.status, error: ((await response.json()) as { error: unknown }).error }).toEqual({
        i,
        status: 400,
        error: { code: -32600, message: 'Invalid Request: JSON-RPC batches exist only in protocol 2025-03-26; send each 2026-07-28 request on its own' },
      });
    }
  });

  it('closes the connection of a 2026-07-28 request whose client left before it was served', async () => {
    server = new McpServer({ name: 'h', version: '1', providers: [Tools] });
    const handler = server.httpHandler();
    const { createServer } = await import('node:http');
    // Mounted behind something slow (an authentication step), as a framework would.
    const http = createServer((req, res) => void new Promise((resolve) => setTimeout(resolve, 100)).then(() => handler(req, res)));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', () => resolve()));
    const port = (http.address() as { port: number }).port;
    const controller = new AbortController();
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'subscriptions/listen', params: { _meta: META, notifications: { toolsListChanged: true } } });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'subscriptions/listen' };
    const pending = fetch(`http://127.0.0.1:${port}/`, { method: 'POST', headers, body, signal: controller.signal }).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 20));
    controller.abort();
    await pending;
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(server.sessions).toHaveLength(0);
    await new Promise<void>((resolve) => http.close(() => resolve()));
  });

  it('echoes huge or unprintable header-checked values bounded, with 400 and the id', async () => {
    server = new McpServer({ name: 'h', version: '1', providers: [Tools] });
    const { url } = await server.listen({ transport: 'http', port: 0, handleSignals: false });
    const post = (params: unknown, extra: Record<string, string>) =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', ...extra },
        body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params }),
      });
    const long = await post({ name: 'n'.repeat(1_000_000), _meta: META }, { 'mcp-name': 'other' });
    expect(long.status).toBe(400);
    expect((await long.text()).length).toBeLessThan(1_000);
    const odd = await post({ name: 'echo', _meta: { ...META, 'io.modelcontextprotocol/protocolVersion': { toString: 1 } } }, { 'mcp-name': 'echo' });
    expect(odd.status).toBe(400);
    expect(await odd.json()).toMatchObject({ id: 9, error: { code: -32602 } });
  });
});
