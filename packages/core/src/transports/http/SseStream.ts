import type { JsonRpcMessage } from '../../protocol';
import type { EventStore } from '../../cluster';
import type { EventBody, SseSink } from './HttpReply';

/**
 * A stream whose events other replicas record too (a session's stream in a cluster, while it
 * moves between them): what the client gets is read back from the store, in the store's order,
 * after the last event it got, so nothing is missed or doubled whoever recorded it.
 */
export interface SharedStreamHooks {
  /** This replica recorded an event on the stream: the replica holding it reads it back. */
  recorded(streamId: string): void;
}

/**
 * One Server-Sent Events stream carrying JSON-RPC messages. Messages are recorded in the event
 * store (when there is one) before writing, so a client that reconnects with `Last-Event-ID`
 * gets what it missed; the sink it writes to may be swapped on resume. As the body of a reply
 * (`forReply`), what is written before the adapter opens it waits for it; otherwise messages
 * sent while no client is attached are only recorded.
 */
export class SseStream implements EventBody {
  private sink: SseSink | undefined;
  /** Text waiting for the reply this stream answers to open. */
  private waiting: string[] | undefined;
  private closed = false;
  private queue: Promise<void> | undefined;
  /** Shared streams: the id of the last event written to the client, where reading back goes on from. */
  private cursor: string | undefined;
  /** Shared streams: a read-back is queued and has not started. */
  private readBackQueued = false;
  /** Resumptions queued and not finished: a read-back asked meanwhile runs after them. */
  private resuming = 0;

  constructor(
    readonly id: string,
    private readonly eventStore: EventStore | undefined,
    /** Called when the client attached last goes away. */
    private readonly onDetach?: () => void,
    private readonly shared?: SharedStreamHooks,
  ) {}

  /** A stream that is the body of a reply not opened yet: what it writes meanwhile waits. */
  static forReply(id: string, eventStore: EventStore | undefined, onDetach?: () => void): SseStream {
    const stream = new SseStream(id, eventStore, onDetach);
    stream.reserve();
    return stream;
  }

  /** A reply is about to open this stream (a GET, a resume): it counts as attached, and what it writes meanwhile waits. */
  reserve(): void {
    if (this.sink === undefined && !this.closed) this.waiting ??= [];
  }

  /** Starts writing to `sink`, after what waited for it; replaces any earlier sink. */
  open(sink: SseSink): void {
    if (this.sink && this.sink !== sink) this.sink.end();
    this.sink = sink;
    const waiting = this.waiting;
    this.waiting = undefined;
    if (waiting) for (const chunk of waiting) sink.write(chunk);
    // Ended before its reply was opened: the client still gets everything, then the end
    // (after what is still queued).
    if (this.closed) this.enqueue(() => this.endSink());
  }

  /** The client of `sink` went away; a sink replaced since (the stream was resumed elsewhere) is no news. */
  close(sink?: SseSink): void {
    if (sink !== undefined && sink !== this.sink) return;
    if (this.sink === undefined && this.waiting === undefined) return;
    this.sink = undefined;
    this.waiting = undefined;
    this.onDetach?.();
  }

  /** True once the stream has ended: nothing more is sent on it. */
  get ended(): boolean {
    return this.closed;
  }

  /** True while a client reads the stream (or its reply is about to be opened). */
  get attached(): boolean {
    return this.sink !== undefined || this.waiting !== undefined;
  }

  /**
   * Records and writes one message. Writes keep their order even when the event store
   * answers asynchronously; a synchronous store writes at once. `key` names an event other
   * replicas may record too (see EventStore).
   */
  send(message: JsonRpcMessage, key?: string): void {
    if (this.closed) return;
    this.enqueue(() => {
      let recorded: Promise<string> | string | undefined;
      try {
        recorded = this.eventStore?.store(this.id, message, key);
      } catch {
        return this.write(undefined, message);
      }
      if (!(recorded instanceof Promise) && !this.shared) return this.write(recorded, message);
      // A store that fails: the client still gets the event, without an id to resume from.
      return Promise.resolve(recorded).then(
        (eventId) => (this.shared ? this.recordedShared(eventId!, message) : this.write(eventId, message)),
        () => this.write(undefined, message),
      );
    });
  }

  /**
   * A client resumes this live stream after `lastEventId`: once what is queued before is
   * recorded, it gets every later event from the store, then the live stream (an earlier
   * connection of it ends). Resolves false, changing nothing, when the store does not know
   * the event.
   */
  resumeAfter(lastEventId: string): Promise<boolean> {
    const eventStore = this.eventStore;
    if (!eventStore || this.closed) return Promise.resolve(false);
    this.resuming++;
    return new Promise((resolve, reject) => {
      this.enqueue(async () => {
        try {
          // Everything queued before was recorded before this read: the replay has it.
          const replayed: Array<[string, JsonRpcMessage]> = [];
          const streamId = await eventStore.replayAfter(lastEventId, (eventId, message) => void replayed.push([eventId, message]));
          if (streamId !== this.id) return resolve(false);
          const earlier = this.sink;
          this.sink = undefined;
          earlier?.end();
          this.waiting = [];
          this.cursor = lastEventId;
          for (const [eventId, message] of replayed) this.advance(eventId, message);
          resolve(true);
        } catch (error) {
          reject(error as Error);
        } finally {
          this.resuming--;
        }
      });
    });
  }

  /** Shared streams: another replica recorded an event here; the client gets it from the store. */
  readBackLater(): void {
    if (!this.shared || this.closed || (this.cursor === undefined && this.resuming === 0) || this.readBackQueued) return;
    this.readBackQueued = true;
    this.enqueue(() => this.readBack().then(
      () => undefined,
      () => undefined, // the next event read back brings it
    ));
  }

  private async recordedShared(eventId: string, message: JsonRpcMessage): Promise<void> {
    // A stream opened here, not resumed: no replica records on it before this one does.
    if (this.cursor === undefined) this.advance(eventId, message);
    else {
      const readBack = await this.readBack().catch(() => undefined);
      // The client is further behind than the store keeps: it gets this event at least.
      if (readBack === false) this.advance(eventId, message);
      // The store failed to answer: the event goes out without an id; the next read-back may repeat it.
      else if (readBack === undefined) this.write(undefined, message);
    }
    this.shared!.recorded(this.id);
  }

  /** Writes what the store has after the cursor; false when the cursor's event is forgotten. */
  private async readBack(): Promise<boolean> {
    this.readBackQueued = false;
    // A resumption that failed leaves nothing to read after.
    if (this.cursor === undefined) return true;
    return (await this.eventStore!.replayAfter(this.cursor!, (eventId, message) => this.advance(eventId, message))) !== undefined;
  }

  private advance(eventId: string, message: JsonRpcMessage): void {
    this.write(eventId, message);
    this.cursor = eventId;
  }

  private enqueue(step: () => void | Promise<void>): void {
    const result = this.queue ? this.queue.then(step) : step();
    if (!(result instanceof Promise)) return;
    // A failed step (each handles its own) must not stop the ones after it.
    const queued: Promise<void> = result.then(
      () => undefined,
      () => undefined,
    ).then(() => {
      if (this.queue === queued) this.queue = undefined;
    });
    this.queue = queued;
  }


  /** Writes an event without recording it (for replays). */
  write(eventId: string | undefined, message: JsonRpcMessage): void {
    this.writeText(`${eventId === undefined ? '' : `id: ${eventId}\n`}event: message\ndata: ${JSON.stringify(message)}\n\n`);
  }

  /** Writes an SSE comment, which clients ignore: keeps quiet streams open through proxies. */
  comment(): void {
    if (!this.closed) this.writeText(':\n\n');
  }

  /** Writes a raw SSE event (the legacy transport's `endpoint` event). */
  writeRaw(event: string, data: string): void {
    this.writeText(`event: ${event}\ndata: ${data}\n\n`);
  }

  end(): void {
    if (this.closed) return;
    this.closed = true;
    this.enqueue(() => this.endSink());
  }

  private endSink(): void {
    const sink = this.sink;
    this.sink = undefined;
    sink?.end();
  }

  private writeText(text: string): void {
    if (this.waiting) this.waiting.push(text);
    else this.sink?.write(text);
  }
}
