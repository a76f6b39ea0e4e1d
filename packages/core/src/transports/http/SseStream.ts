import type { ServerResponse } from 'node:http';
import type { JsonRpcMessage } from '../../protocol';
import type { EventStore } from '../../cluster';

/**
 * One Server-Sent Events stream carrying JSON-RPC messages. Messages are recorded in the
 * event store (when there is one) before writing, so a client that reconnects with
 * `Last-Event-ID` gets what it missed; the response it writes to may be swapped on resume.
 */
export class SseStream {
  private response: ServerResponse | undefined;
  private closed = false;
  private queue: Promise<void> | undefined;

  constructor(
    readonly id: string,
    private readonly eventStore: EventStore | undefined,
    private readonly onDetach?: () => void,
  ) {}

  /** Starts writing to `res`, sending the SSE headers; replaces any earlier response. */
  attach(res: ServerResponse, headers: Record<string, string> = {}): void {
    this.response?.end();
    this.response = res;
    if (!res.headersSent) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive', ...headers });
      res.flushHeaders();
    }
    res.on('close', () => {
      if (this.response === res) {
        this.response = undefined;
        this.onDetach?.();
      }
    });
  }

  get attached(): boolean {
    return this.response !== undefined;
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
    const res = this.response;
    if (!res || res.writableEnded) return;
    res.write(`${eventId === undefined ? '' : `id: ${eventId}\n`}event: message\ndata: ${JSON.stringify(message)}\n\n`);
  }

  /** Writes an SSE comment, which clients ignore: keeps quiet streams open through proxies. */
  comment(): void {
    const res = this.response;
    if (res && !res.writableEnded && !this.closed) res.write(':\n\n');
  }

  /** Writes a raw SSE event (the legacy transport's `endpoint` event). */
  writeRaw(event: string, data: string): void {
    this.response?.write(`event: ${event}\ndata: ${data}\n\n`);
  }

  end(): void {
    if (this.closed) return;
    this.closed = true;
    this.enqueue(() => {
      const res = this.response;
      this.response = undefined;
      if (res && !res.writableEnded) res.end();
    });
  }
}
