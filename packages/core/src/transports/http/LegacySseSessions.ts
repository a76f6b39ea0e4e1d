import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { MessageInfo, OutgoingMessage, Principal, Transport } from '../../protocol';
import { HttpError } from './readBody';
import { SseStream } from './SseStream';

interface Host {
  connect(transport: Transport): Promise<unknown>;
}

/** The transport of one 2024-11-05 HTTP+SSE session: everything the server sends is a `message` event. */
class LegacySseTransport implements Transport {
  onmessage?: (message: unknown, info?: MessageInfo) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private closed = false;

  constructor(
    readonly sessionId: string,
    private readonly stream: SseStream,
    /** Called once when the session ends (onclose belongs to the connection). */
    private readonly onEnded: () => void,
    /** The subject that opened the stream (or first posted to an anonymous one); another one may not post to it. */
    private owner: string | undefined,
  ) {}

  admits(subject: string | undefined): boolean {
    if (this.owner === undefined && subject !== undefined) this.owner = subject;
    return this.owner === subject;
  }

  deliver(payload: unknown, principal: Principal | undefined): void {
    this.onmessage?.(payload, { principal });
  }

  async start(): Promise<void> {}

  send(message: OutgoingMessage): void {
    for (const item of Array.isArray(message) ? message : [message]) this.stream.send(item);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stream.end();
    this.onEnded();
    this.onclose?.();
  }
}

/**
 * The HTTP+SSE transport of protocol 2024-11-05: GET on the SSE path opens the stream and
 * names, in an `endpoint` event, where to POST; POSTs answer 202 and replies travel as
 * `message` events.
 */
export class LegacySseSessions {
  private readonly sessions = new Map<string, LegacySseTransport>();
  private readonly ssePath: string;
  private readonly messagesPath: string;

  constructor(
    private readonly host: Host,
    paths: { ssePath?: string; messagesPath?: string },
  ) {
    this.ssePath = paths.ssePath ?? '/sse';
    this.messagesPath = paths.messagesPath ?? '/messages';
  }

  owns(pathname: string): boolean {
    return pathname === this.ssePath || pathname === this.messagesPath;
  }

  async handle(req: IncomingMessage, res: ServerResponse, pathname: string, readJson: () => Promise<unknown>, principal: Principal | undefined): Promise<void> {
    if (pathname === this.ssePath) {
      if (req.method !== 'GET') {
        res.setHeader('allow', 'GET');
        throw new HttpError(405, `Method ${req.method} not allowed on ${this.ssePath}`);
      }
      return this.open(req, res, principal?.subject);
    }
    if (req.method !== 'POST') {
      res.setHeader('allow', 'POST');
      throw new HttpError(405, `Method ${req.method} not allowed on ${this.messagesPath}`);
    }
    const sessionId = new URL(req.url ?? '/', 'http://localhost').searchParams.get('sessionId');
    if (!sessionId) throw new HttpError(400, 'Bad Request: the sessionId query parameter is required');
    const transport = this.sessions.get(sessionId);
    if (!transport) throw new HttpError(404, 'Session not found');
    if (!transport.admits(principal?.subject)) throw new HttpError(403, 'Forbidden: this session belongs to another principal');
    const payload = await readJson();
    res.writeHead(202, { 'content-type': 'text/plain' }).end('Accepted');
    transport.deliver(payload, principal);
  }

  async close(): Promise<void> {
    await Promise.all([...this.sessions.values()].map((t) => t.close()));
  }

  private async open(req: IncomingMessage, res: ServerResponse, owner: string | undefined): Promise<void> {
    const sessionId = randomUUID();
    const stream = new SseStream(sessionId, undefined);
    const transport = new LegacySseTransport(sessionId, stream, () => this.sessions.delete(sessionId), owner);
    stream.attach(res);
    res.on('close', () => void transport.close());
    this.sessions.set(sessionId, transport);
    await this.host.connect(transport);
    // Relative to where the stream was opened, so the endpoint works behind a path prefix.
    const base = (req.originalUrl ?? req.url ?? this.ssePath).split('?')[0];
    const endpoint = `${base.slice(0, base.length - this.ssePath.length)}${this.messagesPath}?sessionId=${sessionId}`;
    stream.writeRaw('endpoint', endpoint);
  }
}

declare module 'node:http' {
  interface IncomingMessage {
    /** Set by Express when the handler is mounted under a path. */
    originalUrl?: string;
  }
}
