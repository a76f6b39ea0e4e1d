import type { JsonRpcMessage, MessageInfo, OutgoingMessage, RequestId, Transport, TransportSendOptions } from '../../protocol';
import type { EventStore } from '../../cluster';
import { Exchange } from './Exchange';
import type { RefusalHead } from './Exchange';
import { SSE_HEADERS } from './HttpReply';
import type { EventBody, HttpReply, SseSink } from './HttpReply';
import { unrefTimer } from '../../platform';
import { SseStream } from './SseStream';
import type { SharedStreamHooks } from './SseStream';

/** Marks the stream ids of sessions' streams for messages outside requests (GET), as opposed to POST responses. */
const STANDALONE = 'get-';

/**
 * How long a replica goes on recording a session's stream another replica took. Broadcasts
 * published on different Redis Cluster nodes may arrive in another order than they were
 * published, so a change published before the take may reach this replica after it; what is
 * recorded twice is kept once by the event store.
 */
const RELEASE_MS = 2_000;

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
  /** A session shared by a cluster's replicas: its stream is recorded by whichever replica hears an event, and read back from the store. */
  sharedStream?: SharedStreamHooks;
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
  /** The session's stream of another replica, being taken by a resumption here. */
  private taking: SseStream | undefined;
  /** The exchange whose POST is being delivered right now, for errors that carry no id. */
  private delivering: Exchange | undefined;
  private closed = false;
  /** While the session is being saved (shared sessions), what it sends waits, so no answer overtakes the save. */
  private saving: Promise<void> | undefined;
  /** Ends, after RELEASE_MS, the stream another replica took. */
  private releasing: ReturnType<typeof setTimeout> | undefined;
  /** When the session's stream was last opened or resumed here (Date.now()). */
  private keptAt = 0;
  private readonly held: Array<{ message: OutgoingMessage; options: TransportSendOptions | undefined; delivering: Exchange | undefined }> = [];

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
  deliverRequests(body: unknown, requestIds: readonly RequestId[], headers: Record<string, string>, info?: MessageInfo): Exchange {
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
    this.keepStream();
    this.standalone ??= this.newStandalone(`${this.streamPrefix}${STANDALONE}${crypto.randomUUID()}`);
    this.standalone.reserve();
    this.streamChanged(true);
    return { status: 200, headers: { ...SSE_HEADERS, ...headers }, body: this.standalone };
  }

  /** The id of the session's stream for messages outside requests, once opened. */
  get streamId(): string | undefined {
    return this.standalone?.id;
  }

  /**
   * Resumes a stream after `lastEventId`: the reply replays what was missed, then goes on live;
   * undefined when the event is unknown. The session's stream, opened here or on another
   * replica, goes on from here: it is taken before the replay is read, so every event is
   * either in the replay or sent after it.
   */
  async resume(lastEventId: string, headers: Record<string, string>): Promise<HttpReply | undefined> {
    if (!this.eventStore) return undefined;
    const reply = (body: EventBody): HttpReply => ({ status: 200, headers: { ...SSE_HEADERS, ...headers }, body });
    const sessionStream = standaloneStreamOf(lastEventId, this.streamPrefix);
    if (sessionStream !== undefined) {
      if (this.standalone?.id === sessionStream) {
        const stream = this.standalone;
        if (!(await stream.resumeAfter(lastEventId))) return undefined;
        if (this.standalone === stream) this.keepStream();
        this.streamChanged(true);
        return reply(stream);
      }
      // Another stream of the session (one opened on another replica): it is taken before the
      // replay is read, and hears what this session sends meanwhile; the current one goes on
      // until the take succeeds.
      const taking = this.newStandalone(sessionStream);
      this.taking = taking;
      let resumed = false;
      try {
        resumed = await taking.resumeAfter(lastEventId);
      } finally {
        if (this.taking === taking) this.taking = undefined;
        if (!resumed) taking.end();
      }
      if (!resumed) return undefined;
      this.standalone?.end();
      this.standalone = taking;
      this.keepStream();
      this.streamChanged(true);
      return reply(taking);
    }
    for (const exchange of this.exchanges) {
      const live = exchange.resumable;
      if (live && !live.ended && lastEventId.startsWith(`${live.id}:`)) return (await live.resumeAfter(lastEventId)) ? reply(live) : undefined;
    }
    const missed: string[] = [];
    const streamId = await this.eventStore.replayAfter(lastEventId, (eventId, message) => {
      missed.push(`id: ${eventId}\nevent: message\ndata: ${JSON.stringify(message)}\n\n`);
    });
    // Another session's stream is as unknown to this one as a forgotten event.
    if (streamId === undefined || !streamId.startsWith(this.streamPrefix)) return undefined;
    for (const exchange of this.exchanges) {
      const live = exchange.streamId === streamId ? exchange.resumable : undefined;
      if (live && !live.ended && (await live.resumeAfter(lastEventId))) return reply(live);
    }
    // That request's stream has finished (or runs on another replica): the replay is all there is.
    return reply(replayedBody(missed));
  }

  /** Another replica recorded an event on `streamId`: if this replica holds that stream, its client gets it. */
  recordedElsewhere(streamId: string): void {
    if (this.standalone?.id === streamId) this.standalone.readBackLater();
    if (this.taking?.id === streamId) this.taking.readBackLater();
  }

  private newStandalone(id: string): SseStream {
    return new SseStream(id, this.eventStore, () => this.streamChanged(false), this.options.sharedStream);
  }

  requestEnded(id: RequestId): void {
    for (const exchange of this.exchanges) exchange.drop(id);
  }

  send(message: OutgoingMessage, options?: TransportSendOptions): void {
    if (this.closed) return;
    if (this.saving) {
      this.held.push({ message, options, delivering: this.delivering });
      return;
    }
    if (Array.isArray(message)) for (const item of message) this.route(item, options);
    else this.route(message, options);
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
      for (const { message, options, delivering } of this.held.splice(0)) {
        this.delivering = delivering;
        try {
          this.send(message, options);
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
   * Another replica took over the session's stream (a new one, or this one resumed there) at
   * `takenAt`: this one ends it (one stream per session), after going on recording for RELEASE_MS.
   */
  dropStream(takenAt?: number): void {
    const stream = this.standalone;
    // A take older than this replica's own (the client came back here since) is no news.
    if (!stream || this.releasing !== undefined || (takenAt !== undefined && takenAt < this.keptAt)) return;
    this.releasing = unrefTimer(
      setTimeout(() => {
        this.releasing = undefined;
        if (this.standalone === stream) this.endStream();
      }, RELEASE_MS),
    );
  }

  /** The session's stream is opened or resumed here: it is no longer being released. */
  private keepStream(): void {
    this.keptAt = Date.now();
    clearTimeout(this.releasing);
    this.releasing = undefined;
  }

  private endStream(): void {
    this.standalone?.end();
    this.standalone = undefined;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.keepStream();
    for (const exchange of [...this.exchanges]) exchange.abort();
    this.standalone?.end();
    this.taking?.end();
    this.onEnded?.();
    this.onclose?.();
  }

  private streamChanged(opened: boolean): void {
    if (this.standalone) this.options.onStream?.(this.standalone.id, 'session', opened);
  }

  private route(message: JsonRpcMessage, options: TransportSendOptions | undefined): void {
    const relatedRequestId = options?.relatedRequestId;
    const isResponse = 'result' in message || 'error' in message;
    if (isResponse) {
      const id = (message as { id?: RequestId }).id;
      const exchange = id === undefined ? this.delivering : this.exchangeOf(id);
      exchange?.answer(message);
      return;
    }
    const related = relatedRequestId === undefined ? undefined : this.exchangeOf(relatedRequestId);
    if (related) related.relate(message);
    else {
      this.standalone?.send(message, options?.eventKey);
      this.taking?.send(message, options?.eventKey);
    }
  }

  private exchangeOf(id: RequestId): Exchange | undefined {
    for (const exchange of this.exchanges) if (exchange.waitsFor(id)) return exchange;
    return undefined;
  }
}

/** The body of a resumed stream that has finished: what the client missed, then the end. */
function replayedBody(missed: readonly string[]): EventBody {
  return {
    open(sink: SseSink) {
      for (const event of missed) sink.write(event);
      sink.end();
    },
    close() {},
  };
}

/**
 * The session's stream an event id names, when it is one: the event stores here make ids
 * `<stream id>:<n>`, and the session's streams are `<session>.get-<uuid>`. A store with other
 * ids resumes the session's stream through the replay, as a finished stream.
 */
function standaloneStreamOf(lastEventId: string, streamPrefix: string): string | undefined {
  if (!lastEventId.startsWith(`${streamPrefix}${STANDALONE}`)) return undefined;
  const colon = lastEventId.lastIndexOf(':');
  return colon > streamPrefix.length + STANDALONE.length ? lastEventId.slice(0, colon) : undefined;
}
