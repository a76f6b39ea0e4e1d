import type { JsonRpcMessage } from '../../protocol';
import type { EventStore } from '../../cluster';
import type { EventBody, SseSink } from './HttpReply';

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

  constructor(
    readonly id: string,
    private readonly eventStore: EventStore | undefined,
    /** Called when the client attached last goes away. */
    private readonly onDetach?: () => void,
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
    // Ended before its reply was opened: the client still gets everything, then the end.
    if (this.closed && this.queue === undefined) this.endSink();
  }

  /** The client of `sink` went away; a sink replaced since (the stream was resumed elsewhere) is no news. */
  close(sink?: SseSink): void {
    if (sink !== undefined && sink !== this.sink) return;
    if (this.sink === undefined && this.waiting === undefined) return;
    this.sink = undefined;
    this.waiting = undefined;
    this.onDetach?.();
  }

  /** True while a client reads the stream (or its reply is about to be opened). */
  get attached(): boolean {
    return this.sink !== undefined || this.waiting !== undefined;
  }

  /**
   * Records and writes one message. Writes keep their order even when the event store
   * answers asynchronously; a synchronous store writes at once.
   */
  send(message: JsonRpcMessage): void {
    if (this.closed) return;
    this.enqueue(() => {
      const eventId = this.eventStore?.store(this.id, message);
      if (eventId instanceof Promise) return eventId.then((id) => this.write(id, message));
      this.write(eventId, message);
    });
  }

  private enqueue(step: () => void | Promise<void>): void {
    if (this.queue) {
      this.queue = this.queue.then(step);
      return;
    }
    const result = step();
    if (result instanceof Promise) {
      const queued: Promise<void> = result.finally(() => {
        if (this.queue === queued) this.queue = undefined;
      });
      this.queue = queued;
    }
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
