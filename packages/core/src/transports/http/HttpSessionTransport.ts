import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { JsonRpcMessage, OutgoingMessage, RequestId } from '../../protocol';
import type { MessageInfo, Transport, TransportSendOptions } from '../../protocol';
import type { EventStore } from '../../cluster';
import { SseStream } from './SseStream';

/**
 * One POST that carried requests: its responses go back on that HTTP response, as one JSON
 * body, or as an SSE stream once anything else must travel before them (progress, logs,
 * requests to the client).
 */
class Exchange {
  private readonly waiting: Set<RequestId>;
  private readonly answers: JsonRpcMessage[] = [];
  private stream: SseStream | undefined;
  private keepAlive: NodeJS.Timeout | undefined;
  private done = false;

  constructor(
    private readonly res: ServerResponse,
    requestIds: RequestId[],
    private readonly batch: boolean,
    private readonly headers: Record<string, string>,
    private readonly eventStore: EventStore | undefined,
    private readonly streamPrefix: string,
    private readonly onDone: (exchange: Exchange) => void,
    private readonly answerStatus: ((errorCode: number) => number) | undefined,
    private readonly keepAliveMs: number | undefined,
    private readonly refusal: RefusalHead | undefined,
  ) {
    this.waiting = new Set(requestIds);
  }

  get streamId(): string | undefined {
    return this.stream?.id;
  }

  waitsFor(id: RequestId): boolean {
    return this.waiting.has(id);
  }

  /** A message other than a response, related to one of this exchange's requests. */
  relate(message: JsonRpcMessage): void {
    if (this.done) return;
    this.upgrade();
    this.stream!.send(message);
  }

  answer(message: JsonRpcMessage): void {
    if (this.done) return;
    const id = (message as { id?: RequestId }).id;
    if (id === undefined) this.waiting.clear(); // an error about the whole POST
    else this.waiting.delete(id);
    if (this.stream) this.stream.send(message);
    else this.answers.push(message);
    if (this.waiting.size === 0) this.finish();
  }

  /** A request of this exchange ends without a response (cancelled): stop waiting for it. */
  drop(id: RequestId): void {
    if (this.done || !this.waiting.delete(id)) return;
    if (this.waiting.size === 0) this.finish();
  }

  /** Resumes this exchange's stream on a new response (GET with Last-Event-ID). */
  resumeOn(res: ServerResponse): void {
    this.stream?.attach(res, this.headers);
  }

  abort(): void {
    if (this.done) return;
    this.done = true;
    clearInterval(this.keepAlive);
    this.stream?.end();
    if (!this.stream && !this.res.headersSent) {
      this.res.writeHead(503, { 'content-type': 'application/json', ...this.headers });
      // 2026-07-28 (a one-request transport with mapped statuses) reserves -32000: its answer is an
      // internal error of the request, with its id.
      const [id] = this.waiting;
      const body =
        this.answerStatus && id !== undefined
          ? { jsonrpc: '2.0', id, error: { code: -32603, message: 'Internal error: the server closed before answering' } }
          : { jsonrpc: '2.0', error: { code: -32000, message: 'Session closed' } };
      this.res.end(JSON.stringify(body));
    }
    this.onDone(this);
  }

  private upgrade(): void {
    if (this.stream) return;
    this.stream = new SseStream(`${this.streamPrefix}${randomUUID()}`, this.eventStore);
    this.stream.attach(this.res, this.headers);
    for (const earlier of this.answers.splice(0)) this.stream.send(earlier);
    if (this.keepAliveMs !== undefined) {
      const stream = this.stream;
      this.keepAlive = setInterval(() => stream.comment(), this.keepAliveMs);
      this.keepAlive.unref();
    }
  }

  private finish(): void {
    this.done = true;
    clearInterval(this.keepAlive);
    if (this.stream) {
      this.stream.end();
    } else if (!this.res.writableEnded && this.answers.length === 0) {
      // Every request of the POST was cancelled: nothing to answer.
      this.res.writeHead(202, this.headers).end();
    } else if (!this.res.writableEnded) {
      const body = this.batch ? this.answers : this.answers[0];
      const error = (body as { error?: { code?: unknown; data?: unknown } }).error;
      let status = 200;
      let extraHeaders: Record<string, string> | undefined;
      if (error && typeof error.code === 'number') {
        // A refused request answered on its own carries the refusal in its HTTP status (401/403 + WWW-Authenticate).
        const refused = this.refusal?.(error as { code: number; message?: string; data?: unknown });
        if (refused) ({ status, headers: extraHeaders } = refused);
        else if (this.answerStatus) status = this.answerStatus(error.code);
      }
      this.res.writeHead(status, { 'content-type': 'application/json', ...this.headers, ...extraHeaders });
      this.res.end(JSON.stringify(body));
    }
    this.onDone(this);
  }
}

/** Marks the stream ids of sessions' streams for messages outside requests (GET), as opposed to POST responses. */
const STANDALONE = 'get-';

/** The HTTP status and headers of an error answer that refuses the caller, or undefined for other errors. */
export type RefusalHead = (error: { code: number; message?: string; data?: unknown }) => { status: number; headers?: Record<string, string> } | undefined;

/**
 * The transport of one Streamable HTTP session: messages arrive from POSTs; what the server
 * sends is routed to the exchange of the request it belongs to, or to the session's GET
 * stream when it belongs to none (list_changed, resource updates, server logs).
 */
export class HttpSessionTransport implements Transport {
  onmessage?: (message: unknown, info?: MessageInfo) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  lastActivity = Date.now();
  private readonly exchanges = new Set<Exchange>();
  private standalone: SseStream | undefined;
  /** The exchange whose POST is being delivered right now, for errors that carry no id. */
  private delivering: Exchange | undefined;
  private closed = false;
  /** While the session is being saved (shared sessions), what it sends waits, so no answer overtakes the save. */
  private saving: Promise<void> | undefined;
  private readonly held: Array<{ message: OutgoingMessage; relatedRequestId: RequestId | undefined; delivering: Exchange | undefined }> = [];

  constructor(
    readonly sessionId: string | undefined,
    private readonly eventStore: EventStore | undefined,
    /** Called once when the session ends, whoever ends it (onclose belongs to the connection). */
    private readonly onEnded?: () => void,
    private readonly options: {
      /** The HTTP status of a JSON answer that is an error (2026-07-28 maps codes to 400/404); 200 without. */
      answerStatus?: (errorCode: number) => number;
      /** Writes an SSE comment this often on a response stream (long `subscriptions/listen` streams). */
      keepAliveMs?: number;
      /** The status and headers of an answer that refuses the caller (access denied). */
      refusal?: RefusalHead;
      /** The subject the session belongs to: requests from another are refused by the handler. */
      owner?: string;
    } = {},
  ) {}

  /** The subject the session belongs to, once known. */
  get owner(): string | undefined {
    return this.options.owner;
  }

  /** Takes the owner another replica recorded. */
  set owner(subject: string | undefined) {
    this.options.owner = subject;
  }

  /**
   * Checks that `subject` may use this session. A session opened anonymously becomes the first
   * authenticated caller's (a client that stepped up keeps its session); then it is theirs only.
   */
  admits(subject: string | undefined): boolean {
    if (this.options.owner === undefined && subject !== undefined) this.options.owner = subject;
    return this.options.owner === subject;
  }

  async start(): Promise<void> {}

  get busy(): boolean {
    return this.exchanges.size > 0;
  }

  /** True when a request with this id is still being answered on another POST. */
  inProgress(id: RequestId): boolean {
    return [...this.exchanges].some((e) => e.waitsFor(id));
  }

  /**
   * Delivers a POST carrying at least one request; its responses will answer `res`. Resolves
   * once they have all been written.
   */
  deliverRequests(body: unknown, requestIds: RequestId[], res: ServerResponse, headers: Record<string, string>, info?: MessageInfo): Promise<void> {
    this.lastActivity = Date.now();
    let answered!: () => void;
    const done = new Promise<void>((resolve) => (answered = resolve));
    const exchange = new Exchange(
      res,
      requestIds,
      Array.isArray(body),
      headers,
      this.eventStore,
      this.streamPrefix,
      (finished) => {
        this.exchanges.delete(finished);
        this.lastActivity = Date.now();
        answered();
      },
      this.options.answerStatus,
      this.options.keepAliveMs,
      this.options.refusal,
    );
    this.exchanges.add(exchange);
    this.delivering = exchange;
    try {
      this.onmessage?.(body, info);
    } finally {
      this.delivering = undefined;
    }
    return done;
  }

  /** Stream ids start with the session id, so a session replays only its own streams. */
  private get streamPrefix(): string {
    return `${this.sessionId ?? 'stateless'}.`;
  }

  /** Delivers a POST of notifications and responses only (answered 202 by the caller). */
  deliver(body: unknown, info?: MessageInfo): void {
    this.lastActivity = Date.now();
    this.onmessage?.(body, info);
  }

  /** Opens the session's stream for messages outside any request (GET). False when one is open. */
  openStandalone(res: ServerResponse, headers: Record<string, string>): boolean {
    this.lastActivity = Date.now();
    if (this.standalone?.attached) return false;
    this.standalone ??= new SseStream(`${this.streamPrefix}${STANDALONE}${randomUUID()}`, this.eventStore);
    this.standalone.attach(res, headers);
    return true;
  }

  /** The id of the session's stream for messages outside requests, once opened. */
  get streamId(): string | undefined {
    return this.standalone?.id;
  }

  /** Resumes a stream after `lastEventId` on `res`; false when the event is unknown. */
  async resume(lastEventId: string, res: ServerResponse, headers: Record<string, string>): Promise<boolean> {
    if (!this.eventStore) return false;
    const missed: string[] = [];
    const streamId = await this.eventStore.replayAfter(lastEventId, (eventId, message) => {
      missed.push(`id: ${eventId}\nevent: message\ndata: ${JSON.stringify(message)}\n\n`);
    });
    // Another session's stream is as unknown to this one as a forgotten event.
    if (streamId === undefined || !streamId.startsWith(this.streamPrefix)) return false;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive', ...headers });
    res.flushHeaders(); // the client learns it resumed even when it missed nothing
    for (const event of missed) res.write(event);
    const exchange = [...this.exchanges].find((e) => e.streamId === streamId);
    if (exchange) exchange.resumeOn(res);
    else if (this.standalone?.id === streamId) this.standalone.attach(res, headers);
    else if (streamId.startsWith(`${this.streamPrefix}${STANDALONE}`)) {
      // The session's stream, opened on another replica: it goes on from here.
      this.standalone?.end();
      this.standalone = new SseStream(streamId, this.eventStore);
      this.standalone.attach(res, headers);
    } else res.end(); // that stream has finished (or runs on another replica): everything it carried was replayed
    return true;
  }

  requestEnded(id: RequestId): void {
    for (const exchange of this.exchanges) exchange.drop(id);
  }

  send(message: OutgoingMessage, options?: TransportSendOptions): void {
    if (this.closed) return;
    if (this.saving) {
      this.held.push({ message, relatedRequestId: options?.relatedRequestId, delivering: this.delivering });
      return;
    }
    const messages = Array.isArray(message) ? message : [message];
    for (const item of messages) this.route(item, options?.relatedRequestId);
  }

  /**
   * Holds what the session sends until `save` settles (a shared session's record is being
   * written), so a client never hears an answer before every replica can read what led to it.
   */
  holdUntil(save: Promise<void>): void {
    const saving: Promise<void> = Promise.all([this.saving, save]).then(
      () => undefined,
      () => undefined,
    );
    this.saving = saving;
    void saving.then(() => {
      if (this.saving !== saving) return; // a later save holds them longer
      this.saving = undefined;
      for (const { message, relatedRequestId, delivering } of this.held.splice(0)) {
        this.delivering = delivering;
        try {
          this.send(message, relatedRequestId === undefined ? undefined : { relatedRequestId });
        } finally {
          this.delivering = undefined;
        }
      }
    });
  }

  /** Resolves once nothing is held back (see holdUntil). */
  async settled(): Promise<void> {
    while (this.saving) await this.saving;
  }

  /** True when the session's stream for messages outside requests is open on this process. */
  get hasStream(): boolean {
    return this.standalone?.attached ?? false;
  }

  /**
   * Another replica took over the session's stream (a new one, or this one resumed there):
   * this one ends and forgets its own, so nothing is recorded twice under one stream id.
   */
  dropStream(): void {
    this.standalone?.end();
    this.standalone = undefined;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const exchange of [...this.exchanges]) exchange.abort();
    this.standalone?.end();
    this.onEnded?.();
    this.onclose?.();
  }

  private route(message: JsonRpcMessage, relatedRequestId: RequestId | undefined): void {
    const isResponse = 'result' in message || 'error' in message;
    if (isResponse) {
      const id = (message as { id?: RequestId }).id;
      const exchange = id === undefined ? this.delivering : [...this.exchanges].find((e) => e.waitsFor(id));
      exchange?.answer(message);
      return;
    }
    const related = relatedRequestId === undefined ? undefined : [...this.exchanges].find((e) => e.waitsFor(relatedRequestId));
    if (related) related.relate(message);
    else this.standalone?.send(message);
  }
}
