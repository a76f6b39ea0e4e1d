import type { JsonRpcMessage } from '../protocol';

/**
 * Keeps the events sent on SSE streams so a client that lost its connection can resume
 * with `Last-Event-ID`. Implement it over a shared store to resume across processes.
 *
 * Event ids are unique across streams and increase along each stream. In a cluster several
 * replicas may record the same event (a change every replica hears) while a stream moves
 * between them: `key` names such an event, and a stream records it once.
 */
export interface EventStore {
  /**
   * Records a message sent on `streamId`; returns its event id. With `key`, an event of that
   * key already on the stream is not recorded again: its id is returned.
   */
  store(streamId: string, message: JsonRpcMessage, key?: string): Promise<string> | string;
  /**
   * Sends, in order, the events of the stream that `lastEventId` belongs to which came after
   * it; returns that stream's id, or undefined when the id is unknown (or forgotten).
   */
  replayAfter(lastEventId: string, send: (eventId: string, message: JsonRpcMessage) => void): Promise<string | undefined> | string | undefined;
}

interface StoredEvent {
  streamId: string;
  message: JsonRpcMessage;
  key: string | undefined;
}

/** An EventStore in memory that forgets the oldest events beyond `maxEvents` (default 10 000). */
export class InMemoryEventStore implements EventStore {
  private readonly events = new Map<string, StoredEvent>();
  /** The ids of keyed events, per stream and key; forgotten with their events. */
  private readonly keyed = new Map<string, string>();
  private nextId = 0;

  constructor(private readonly maxEvents = 10_000) {}

  store(streamId: string, message: JsonRpcMessage, key?: string): string {
    const keyOfStream = key === undefined ? undefined : `${streamId}\n${key}`;
    const known = keyOfStream === undefined ? undefined : this.keyed.get(keyOfStream);
    if (known !== undefined) return known;
    const eventId = `${streamId}:${this.nextId++}`;
    this.events.set(eventId, { streamId, message, key: keyOfStream });
    if (keyOfStream !== undefined) this.keyed.set(keyOfStream, eventId);
    if (this.events.size > this.maxEvents) {
      const [oldestId, oldest] = this.events.entries().next().value!;
      this.events.delete(oldestId);
      if (oldest.key !== undefined) this.keyed.delete(oldest.key);
    }
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
