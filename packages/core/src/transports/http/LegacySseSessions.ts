import type { MessageInfo, OutgoingMessage, Principal, Transport } from '../../protocol';
import { HttpError, SSE_HEADERS } from './HttpReply';
import type { HttpReply } from './HttpReply';
import { pathOf, queryParam } from './HttpRequest';
import type { IncomingRequest } from './HttpRequest';
import { SseStream } from './SseStream';

interface Host {
  connect(transport: Transport): Promise<unknown>;
}

/** The transport of one 2024-11-05 HTTP+SSE session: everything the server sends is a `message` event. */
class LegacySseTransport implements Transport {
  onmessage?: (message: unknown, info?: MessageInfo) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  readonly network = 'tcp';
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

  deliver(payload: unknown, info: MessageInfo): void {
    this.onmessage?.(payload, info);
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
    /** Told when a stream opens or ends (observers). */
    private readonly onStream?: (streamId: string, opened: boolean) => void,
  ) {
    this.ssePath = paths.ssePath ?? '/sse';
    this.messagesPath = paths.messagesPath ?? '/messages';
  }

  owns(pathname: string): boolean {
    return pathname === this.ssePath || pathname === this.messagesPath;
  }

  async handle(request: IncomingRequest, pathname: string, readJson: () => Promise<unknown>, principal: Principal | undefined): Promise<HttpReply> {
    if (pathname === this.ssePath) {
      if (request.method !== 'GET') throw new HttpError(405, `Method ${request.method} not allowed on ${this.ssePath}`, -32000, { allow: 'GET' });
      return this.open(request, principal?.subject);
    }
    if (request.method !== 'POST') throw new HttpError(405, `Method ${request.method} not allowed on ${this.messagesPath}`, -32000, { allow: 'POST' });
    const sessionId = queryParam(request.url, 'sessionId');
    if (!sessionId) throw new HttpError(400, 'Bad Request: the sessionId query parameter is required');
    const transport = this.sessions.get(sessionId);
    if (!transport) throw new HttpError(404, 'Session not found');
    if (!transport.admits(principal?.subject)) throw new HttpError(403, 'Forbidden: this session belongs to another principal');
    const payload = await readJson();
    // Accepted first: the answers travel on the stream, after this reply.
    queueMicrotask(() => transport.deliver(payload, { principal, clientAddress: request.clientAddress, request }));
    return { status: 202, headers: { 'content-type': 'text/plain' }, body: 'Accepted' };
  }

  async close(): Promise<void> {
    await Promise.all([...this.sessions.values()].map((t) => t.close()));
  }

  private async open(request: IncomingRequest, owner: string | undefined): Promise<HttpReply> {
    const sessionId = crypto.randomUUID();
    let transport: LegacySseTransport | undefined;
    const stream = SseStream.forReply(sessionId, undefined, () => void transport?.close());
    transport = new LegacySseTransport(
      sessionId,
      stream,
      () => {
        this.sessions.delete(sessionId);
        this.onStream?.(sessionId, false);
      },
      owner,
    );
    this.sessions.set(sessionId, transport);
    await this.host.connect(transport);
    this.onStream?.(sessionId, true);
    // Relative to where the stream was opened, so the endpoint works behind a path prefix.
    const base = pathOf(request.originalUrl ?? request.url);
    const endpoint = `${base.slice(0, base.length - this.ssePath.length)}${this.messagesPath}?sessionId=${sessionId}`;
    stream.writeRaw('endpoint', endpoint);
    if (request.gone) void transport.close();
    return { status: 200, headers: SSE_HEADERS, body: stream };
  }
}
