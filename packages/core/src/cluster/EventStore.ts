import type { JsonRpcMessage } from '../protocol';

/**
 * Keeps the events sent on SSE streams so a client that lost its connection can resume
 * with `Last-Event-ID`. Implement it over a shared store to resume across processes.
 */
export interface EventStore {
  /** Records a message sent on `streamId`; returns its event id (unique across streams). */
  store(streamId: string, message: JsonRpcMessage): Promise<string> | string;
  /**
   * Sends, in order, the events of the stream that `lastEventId` belongs to which came after
   * it; returns that stream's id, or undefined when the id is unknown (or forgotten).
   */
  replayAfter(lastEventId: string, send: (eventId: string, message: JsonRpcMessage) => void): Promise<string | undefined> | string | undefined;
}

/** An EventStore in memory that forgets the oldest events beyond `maxEvents` (default 10 000). */
export class InMemoryEventStore implements EventStore {
  private readonly events = new Map<string, { streamId: string; message: JsonRpcMessage }>();
  private nextId = 0;

  constructor(private readonly maxEvents = 10_000) {}

  store(streamId: string, message: JsonRpcMessage): string {
    const eventId = `${streamId}:${this.nextId++}`;
    this.events.set(eventId, { streamId, message });
    if (this.events.size > this.maxEvents) this.events.delete(this.events.keys().next().value!);
    return eventId;
  }

  replayAfter(lastEventId: string, send: (eventId: string, message: JsonRpcMessage) => void): string | undefined {
    const last = this.events.get(lastEventId);
    if (!last) return undefined;
    let after = false;
    for (const [eventId, event] of this.events) {
      if (after && event.streamId === last.streamId) send(eventId, event.message);
      if (eventId === lastEventId) after = true;
    }
    return last.streamId;
  }
}
