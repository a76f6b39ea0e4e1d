import type { EventStore } from '../../cluster';
import type { JsonRpcMessage, RequestId } from '../../protocol';
import { jsonReply, SSE_HEADERS } from './HttpReply';
import type { HttpReply } from './HttpReply';
import { SseStream } from './SseStream';

/** The HTTP status and headers of an error answer that refuses the caller, or undefined for other errors. */
export type RefusalHead = (error: { code: number; message?: string; data?: unknown }) => { status: number; headers?: Record<string, string> } | undefined;

/** How the answers of one POST go out. */
export interface ExchangeOptions {
  /** Headers of the reply (`mcp-session-id`, …). */
  readonly headers: Readonly<Record<string, string>>;
  /** Where its events are kept for resumption, when it becomes a stream. */
  readonly eventStore: EventStore | undefined;
  /** Its stream's id starts with this (the session's id), so a session replays only its own. */
  readonly streamPrefix: string;
  /** The HTTP status of a JSON answer that is an error (2026-07-28 maps codes to 400/404); 200 without. */
  readonly answerStatus?: (errorCode: number) => number;
  /** Writes an SSE comment this often on the stream (long `subscriptions/listen` streams). */
  readonly keepAliveMs?: number;
  /** The status and headers of an answer that refuses the caller (access denied). */
  readonly refusal?: RefusalHead;
  /** Told when the exchange becomes a stream and when that stream ends. */
  readonly onStream?: (streamId: string, opened: boolean) => void;
  /** The client went away before the exchange finished. */
  readonly onGone?: () => void;
  /** The exchange finished or was cut off (before `done` resolves). */
  readonly onEnded?: (exchange: Exchange) => void;
}

/**
 * One POST that carried requests: its responses go back as one JSON body, or as an SSE stream
 * once anything else must travel before them (progress, logs, requests to the client). `reply`
 * resolves when the answer's head is known (the JSON is complete, or the stream begins);
 * `done` when the last response was written or the exchange was cut off.
 */
export class Exchange {
  readonly reply: Promise<HttpReply>;
  private resolveReply!: (reply: HttpReply) => void;
  private donePromise: Promise<void> | undefined;
  private resolveDone: (() => void) | undefined;
  private readonly waiting: Set<RequestId>;
  private readonly answers: JsonRpcMessage[] = [];
  private stream: SseStream | undefined;
  private keepAlive: ReturnType<typeof setInterval> | undefined;
  private finished = false;

  constructor(
    requestIds: readonly RequestId[],
    private readonly batch: boolean,
    private readonly options: ExchangeOptions,
  ) {
    this.waiting = new Set(requestIds);
    this.reply = new Promise((resolve) => (this.resolveReply = resolve));
  }

  /** Resolves once the last response was written or the exchange was cut off; made when first asked for. */
  get done(): Promise<void> {
    if (!this.donePromise) {
      this.donePromise = this.finished ? Promise.resolve() : new Promise((resolve) => (this.resolveDone = resolve));
    }
    return this.donePromise;
  }

  get streamId(): string | undefined {
    return this.stream?.id;
  }

  get isDone(): boolean {
    return this.finished;
  }

  waitsFor(id: RequestId): boolean {
    return this.waiting.has(id);
  }

  /** A message other than a response, related to one of this exchange's requests. */
  relate(message: JsonRpcMessage): void {
    if (this.finished) return;
    this.upgrade().send(message);
  }

  answer(message: JsonRpcMessage): void {
    if (this.finished) return;
    const id = (message as { id?: RequestId }).id;
    if (id === undefined) this.waiting.clear(); // an error about the whole POST
    else this.waiting.delete(id);
    if (this.stream) this.stream.send(message);
    else this.answers.push(message);
    if (this.waiting.size === 0) this.finish();
  }

  /** A request of this exchange ends without a response (cancelled): stop waiting for it. */
  drop(id: RequestId): void {
    if (this.finished || !this.waiting.delete(id)) return;
    if (this.waiting.size === 0) this.finish();
  }

  /** The stream of this exchange, for a client that resumes it (GET with Last-Event-ID). */
  get resumable(): SseStream | undefined {
    return this.stream;
  }

  /** The exchange is cut off (its session closed): the stream ends, or a JSON answer says why. */
  abort(): void {
    if (this.finished) return;
    this.finished = true;
    clearInterval(this.keepAlive);
    if (this.stream) {
      this.stream.end();
    } else {
      // 2026-07-28 (answers with mapped statuses) reserves -32000: its answer is an internal
      // error of the request, with its id.
      const [id] = this.waiting;
      const body =
        this.options.answerStatus && id !== undefined
          ? { jsonrpc: '2.0', id, error: { code: -32603, message: 'Internal error: the server closed before answering' } }
          : { jsonrpc: '2.0', error: { code: -32000, message: 'Session closed' } };
      this.resolveReply(jsonReply(503, body, this.options.headers));
    }
    this.ended();
  }

  private upgrade(): SseStream {
    if (this.stream) return this.stream;
    const streamId = `${this.options.streamPrefix}${crypto.randomUUID()}`;
    const stream = SseStream.forReply(streamId, this.options.eventStore, () => {
      if (!this.finished) this.options.onGone?.();
    });
    this.stream = stream;
    for (const earlier of this.answers.splice(0)) stream.send(earlier);
    const keepAliveMs = this.options.keepAliveMs;
    if (keepAliveMs !== undefined) {
      this.keepAlive = setInterval(() => stream.comment(), keepAliveMs);
      (this.keepAlive as { unref?: () => void }).unref?.();
    }
    this.options.onStream?.(streamId, true);
    this.resolveReply({ status: 200, headers: { ...SSE_HEADERS, ...this.options.headers }, body: stream });
    return stream;
  }

  private finish(): void {
    this.finished = true;
    clearInterval(this.keepAlive);
    if (this.stream) {
      this.stream.end();
    } else if (this.answers.length === 0) {
      // Every request of the POST was cancelled: nothing to answer.
      this.resolveReply({ status: 202, headers: this.options.headers });
    } else {
      const body = this.batch ? this.answers : this.answers[0];
      const error = (body as { error?: { code?: unknown; data?: unknown } }).error;
      let status = 200;
      let extraHeaders: Record<string, string> | undefined;
      if (error && typeof error.code === 'number') {
        // A refused request answered on its own carries the refusal in its HTTP status (401/403 + WWW-Authenticate).
        const refused = this.options.refusal?.(error as { code: number; message?: string; data?: unknown });
        if (refused) ({ status, headers: extraHeaders } = refused);
        else if (this.options.answerStatus) status = this.options.answerStatus(error.code);
      }
      this.resolveReply(jsonReply(status, body, extraHeaders === undefined ? this.options.headers : { ...this.options.headers, ...extraHeaders }));
    }
    this.ended();
  }

  private ended(): void {
    if (this.stream) this.options.onStream?.(this.stream.id, false);
    this.options.onEnded?.(this);
    this.resolveDone?.();
  }
}
