import http from 'node:http';
import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import type { AddressInfo } from 'node:net';

type Message = Record<string, unknown>;

/** The most a client may POST at once. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;

/**
 * The client's side of `typemcp dev`'s stdio session (StdioSession), served to one HTTP client
 * over Streamable HTTP on 127.0.0.1: what `typemcp dev --inspect` connects the MCP Inspector to.
 * The session outlives the server processes behind it, so the Inspector stays connected across
 * restarts and hears `notifications/tools/list_changed` after each.
 *
 * A POST carries client messages; one with requests is answered with their responses as JSON
 * once all have come back. Everything else the server sends (notifications, its own requests,
 * answers whose POST is gone) goes out on the GET event stream, held until one is open.
 */
export class SessionEndpoint {
  /** What the client sends, as lines: the session's input. */
  readonly input = new PassThrough();
  /** What the session sends the client, as lines. */
  readonly output = new PassThrough();
  private readonly waiting = new Map<string, (message: Message) => void>();
  private stream: http.ServerResponse | undefined;
  private queued: string[] = [];
  private buffered = '';
  /** Called when a client begins a conversation (its initialize), with the name it gives. */
  onConnect: ((client: string) => void) | undefined;

  private constructor(
    private readonly server: http.Server,
    /** The endpoint's URL, http://127.0.0.1:<port>/mcp. */
    readonly url: string,
  ) {
    this.output.setEncoding('utf8');
    this.output.on('data', (chunk: string) => {
      this.buffered += chunk;
      let newline: number;
      while ((newline = this.buffered.indexOf('\n')) >= 0) {
        const line = this.buffered.slice(0, newline);
        this.buffered = this.buffered.slice(newline + 1);
        if (line.trim()) this.fromSession(line);
      }
    });
  }

  /** Listens on 127.0.0.1 on a port the system picks. */
  static async listen(): Promise<SessionEndpoint> {
    let endpoint: SessionEndpoint | undefined;
    const server = http.createServer((req, res) => void endpoint?.handle(req, res));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    endpoint = new SessionEndpoint(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
    return endpoint;
  }

  async close(): Promise<void> {
    this.stream?.end();
    this.stream = undefined;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private fromSession(line: string): void {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      return;
    }
    if (isResponse(message)) {
      const deliver = this.waiting.get(JSON.stringify(message.id));
      if (deliver) {
        this.waiting.delete(JSON.stringify(message.id));
        deliver(message);
        return;
      }
    }
    this.push(line);
  }

  /** A line for the GET stream: sent now, or when one opens. */
  private push(line: string): void {
    if (this.stream) this.stream.write(`event: message\ndata: ${line}\n\n`);
    else this.queued.push(line);
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    // Only this machine's pages and programs: a page of another origin gets nothing.
    const origin = req.headers.origin;
    if (origin && !/^https?:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/.test(origin)) return void res.writeHead(403).end();
    // DNS rebinding: a page of another name that resolves here sends no Origin on a GET, but its Host names it.
    const port = new URL(this.url).port;
    if (!/^(127\.0\.0\.1|localhost|\[::1\])$/i.test(hostName(req.headers.host, port))) return void res.writeHead(403).end();
    if (new URL(req.url ?? '/', 'http://x').pathname !== '/mcp') return void res.writeHead(404).end();
    switch (req.method) {
      case 'POST':
        return this.post(req, res);
      case 'GET':
        return this.get(req, res);
      case 'DELETE':
        // The session belongs to `typemcp dev`: it outlives a client that leaves.
        return void res.writeHead(200).end();
      default:
        return void res.writeHead(405, { allow: 'GET, POST, DELETE' }).end();
    }
  }

  private get(req: http.IncomingMessage, res: http.ServerResponse): void {
    if (!String(req.headers.accept ?? '').includes('text/event-stream')) return void res.writeHead(406).end();
    this.stream?.end();
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    res.flushHeaders();
    this.stream = res;
    res.on('close', () => {
      if (this.stream === res) this.stream = undefined;
    });
    const queued = this.queued;
    this.queued = [];
    for (const line of queued) this.push(line);
  }

  private async post(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    let body = '';
    let size = 0;
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) return void res.writeHead(413, { connection: 'close' }).end();
      body += chunk.toString('utf8');
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return reply(res, 400, { jsonrpc: '2.0', id: null, error: { code: PARSE_ERROR, message: 'Parse error' } });
    }
    const batch = Array.isArray(parsed);
    const messages = (batch ? parsed : [parsed]) as unknown[];
    if (messages.length === 0 || !messages.every((m) => typeof m === 'object' && m !== null && !Array.isArray(m))) {
      return reply(res, 400, { jsonrpc: '2.0', id: null, error: { code: INVALID_REQUEST, message: 'Invalid request' } });
    }
    const requests = (messages as Message[]).filter((m) => typeof m.method === 'string' && 'id' in m);
    for (const request of requests) if (request.method === 'initialize') this.onConnect?.(clientName(request));
    const answers = requests.map((request) => new Promise<Message>((resolve) => this.waiting.set(JSON.stringify(request.id), resolve)));
    res.on('close', () => {
      // The client gave up: answers that come later go out on the GET stream.
      if (!res.writableEnded) for (const request of requests) this.waiting.delete(JSON.stringify(request.id));
    });
    this.input.write(`${JSON.stringify(parsed)}\n`);
    if (requests.length === 0) return void res.writeHead(202).end();
    const responses = await Promise.all(answers);
    if (res.destroyed) return;
    reply(res, 200, batch ? responses : responses[0]);
  }
}

function reply(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** The name in a Host header when it names `port`, else '' (no Host, another port). */
function hostName(host: string | undefined, port: string): string {
  const at = host?.lastIndexOf(':') ?? -1;
  return host !== undefined && at > 0 && host.slice(at + 1) === port ? host.slice(0, at) : '';
}

function clientName(initialize: Message): string {
  const info = (initialize.params as { clientInfo?: { name?: unknown; version?: unknown } } | undefined)?.clientInfo;
  return typeof info?.name === 'string' ? `${info.name}${typeof info.version === 'string' ? ` ${info.version}` : ''}` : 'a client';
}

function isResponse(message: unknown): message is Message & { id: unknown } {
  return typeof message === 'object' && message !== null && !('method' in message) && 'id' in message;
}
