import type { JsonRpcMessage, MessageInfo, OutgoingMessage, RequestId, Transport, TransportSendOptions } from '../../protocol';
import type { EventStore } from '../../cluster';
import { Exchange } from './Exchange';
import type { RefusalHead } from './Exchange';
import { SSE_HEADERS } from './HttpReply';
import type { EventBody, HttpReply, SseSink } from './HttpReply';
import { SseStream } from './SseStream';

/** Marks the stream ids of sessions' streams for messages outside requests (GET), as opposed to POST responses. */
const STANDALONE = 'get-';

export interface SessionTransportOptions {
  /** The HTTP status of a JSON answer that is an error (2026-07-28 maps codes to 400/404); 200 without. */
  answerStatus?: (errorCode: number) => number;
  /** The status and headers of an answer that refuses the caller (access denied). */
  refusal?: RefusalHead;
  /** The subject the session belongs to: requests from another are refused by the handler. */
  owner?: string;
  /** Told when one of the session's streams opens or ends (observers). */
  onStream?: (streamId: string, kind: 'request' | 'session', opened: boolean) => void;
  /** The transport of one POST (stateless): it closes once that POST's answer is complete. */
  oneShot?: boolean;
}

/**
 * The transport of one Streamable HTTP session (or of one stateless POST): messages arrive
 * from POSTs; what the server sends is routed to the exchange of the request it belongs to, or
 * to the session's GET stream when it belongs to none (list_changed, resource updates, logs).
 */
export class HttpSessionTransport implements Transport {
  onmessage?: (message: unknown, info?: MessageInfo) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  readonly network = 'tcp';
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
    private readonly options: SessionTransportOptions = {},
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
    for (const exchange of this.exchanges) if (exchange.waitsFor(id)) return true;
    return false;
  }

  /**
   * Delivers a POST carrying at least one request. `reply` resolves with the answer's head (the
   * whole JSON answer, or the start of its stream); `done` once every response was written.
   */
  deliverRequests(body: unknown, requestIds: RequestId[], headers: Record<string, string>, info?: MessageInfo): Exchange {
    this.lastActivity = Date.now();
    const onStream = this.options.onStream;
    const exchange = new Exchange(requestIds, Array.isArray(body), {
      headers,
      eventStore: this.eventStore,
      streamPrefix: this.streamPrefix,
      answerStatus: this.options.answerStatus,
      refusal: this.options.refusal,
      onStream: onStream && ((streamId, opened) => onStream(streamId, 'request', opened)),
      onEnded: this.exchangeEnded,
    });
    this.exchanges.add(exchange);
    this.delivering = exchange;
    try {
      this.onmessage?.(body, info);
    } finally {
      this.delivering = undefined;
    }
    return exchange;
  }

  private readonly exchangeEnded = (exchange: Exchange): void => {
    this.exchanges.delete(exchange);
    this.lastActivity = Date.now();
    if (this.options.oneShot) void this.close();
  };

  /** Stream ids start with the session id, so a session replays only its own streams. */
  private get streamPrefix(): string {
    return `${this.sessionId ?? 'stateless'}.`;
  }

  /** Delivers a POST of notifications and responses only (answered 202 by the caller). */
  deliver(body: unknown, info?: MessageInfo): void {
    this.lastActivity = Date.now();
    this.onmessage?.(body, info);
  }

  /** Opens the session's stream for messages outside any request (GET); undefined when one is open. */
  openStandalone(headers: Record<string, string>): HttpReply | undefined {
    this.lastActivity = Date.now();
    if (this.standalone?.attached) return undefined;
    if (!this.standalone) {
      this.standalone = new SseStream(`${this.streamPrefix}${STANDALONE}${crypto.randomUUID()}`, this.eventStore, () => this.streamChanged(false));
    }
    this.standalone.reserve();
    this.streamChanged(true);
    return { status: 200, headers: { ...SSE_HEADERS, ...headers }, body: this.standalone };
  }

  /** The id of the session's stream for messages outside requests, once opened. */
  get streamId(): string | undefined {
    return this.standalone?.id;
  }

  /** Resumes a stream after `lastEventId`: the reply replays what was missed, then goes on live; undefined when the event is unknown. */
  async resume(lastEventId: string, headers: Record<string, string>): Promise<HttpReply | undefined> {
    if (!this.eventStore) return undefined;
    const missed: string[] = [];
    const streamId = await this.eventStore.replayAfter(lastEventId, (eventId, message) => {
      missed.push(`id: ${eventId}\nevent: message\ndata: ${JSON.stringify(message)}\n\n`);
    });
    // Another session's stream is as unknown to this one as a forgotten event.
    if (streamId === undefined || !streamId.startsWith(this.streamPrefix)) return undefined;
    let live: SseStream | undefined;
    for (const exchange of this.exchanges) if (exchange.streamId === streamId) live = exchange.resumable;
    if (!live && this.standalone?.id === streamId) live = this.standalone;
    else if (!live && streamId.startsWith(`${this.streamPrefix}${STANDALONE}`)) {
      // The session's stream, opened on another replica: it goes on from here.
      this.standalone?.end();
      this.standalone = new SseStream(streamId, this.eventStore, () => this.streamChanged(false));
      live = this.standalone;
    }
    live?.reserve();
    if (live === this.standalone) this.streamChanged(true);
    // Without a live stream, that stream has finished (or runs on another replica): the replay is all there is.
    return { status: 200, headers: { ...SSE_HEADERS, ...headers }, body: resumedBody(missed, live) };
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
    if (Array.isArray(message)) for (const item of message) this.route(item, options?.relatedRequestId);
    else this.route(message, options?.relatedRequestId);
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

  private streamChanged(opened: boolean): void {
    if (this.standalone) this.options.onStream?.(this.standalone.id, 'session', opened);
  }

  private route(message: JsonRpcMessage, relatedRequestId: RequestId | undefined): void {
    const isResponse = 'result' in message || 'error' in message;
    if (isResponse) {
      const id = (message as { id?: RequestId }).id;
      const exchange = id === undefined ? this.delivering : this.exchangeOf(id);
      exchange?.answer(message);
      return;
    }
    const related = relatedRequestId === undefined ? undefined : this.exchangeOf(relatedRequestId);
    if (related) related.relate(message);
    else this.standalone?.send(message);
  }

  private exchangeOf(id: RequestId): Exchange | undefined {
    for (const exchange of this.exchanges) if (exchange.waitsFor(id)) return exchange;
    return undefined;
  }
}

/** The body of a resumed stream: what the client missed, then the live stream if it goes on, else the end. */
function resumedBody(missed: readonly string[], live: SseStream | undefined): EventBody {
  return {
    open(sink: SseSink) {
      for (const event of missed) sink.write(event);
      if (live) live.open(sink);
      else sink.end();
    },
    close(sink?: SseSink) {
      live?.close(sink);
    },
  };
}
