import type { Redis } from 'ioredis';
import type { EventStore, JsonRpcMessage } from '@typemcp/core';
import { checkClient, keyPrefixOf, positiveInteger } from './keys';
import type { RedisStoreOptions } from './keys';

/** Options of a RedisEventStore. */
export interface RedisEventStoreOptions extends RedisStoreOptions {
  /** The events kept per SSE stream; older ones are forgotten (default 1000). */
  maxEventsPerStream?: number;
  /** A stream nothing was stored on for this long is forgotten whole (default 3 600 000: one hour). */
  streamTtlMs?: number;
}

const EVENT_ID = /^([\s\S]*):(\d+-\d+)$/;

/**
 * SSE events in Redis for `Last-Event-ID` resumption on any replica: one Redis stream per SSE
 * stream (`<prefix>events:<streamId>`), capped at `maxEventsPerStream` entries and expiring
 * `streamTtlMs` after its last event. An event id is `<streamId>:<Redis entry id>`: unique
 * across streams and replicas, and it names its stream, so a replay reads only the entries
 * after it (XRANGE, O(log n + events replayed)).
 */
export class RedisEventStore implements EventStore {
  private readonly prefix: string;
  private readonly maxEvents: number;
  private readonly ttlMs: number;

  constructor(
    private readonly client: Redis,
    options?: RedisEventStoreOptions,
  ) {
    checkClient(client, 'RedisEventStore');
    this.prefix = `${keyPrefixOf(options, 'RedisEventStore')}events:`;
    this.maxEvents = positiveInteger(options?.maxEventsPerStream, 1000, 'RedisEventStore', 'maxEventsPerStream');
    this.ttlMs = positiveInteger(options?.streamTtlMs, 3_600_000, 'RedisEventStore', 'streamTtlMs');
  }

  /** XADD (capped) and PEXPIRE, pipelined: one round trip. */
  async store(streamId: string, message: JsonRpcMessage): Promise<string> {
    const key = this.prefix + streamId;
    const replies = await this.client.pipeline().xadd(key, 'MAXLEN', this.maxEvents, '*', 'm', JSON.stringify(message)).pexpire(key, this.ttlMs).exec();
    const [error, entryId] = replies![0];
    if (error) throw error;
    return `${streamId}:${entryId as string}`;
  }

  /** One XRANGE from the event itself: undefined when it is not (or no longer) in its stream. */
  async replayAfter(lastEventId: string, send: (eventId: string, message: JsonRpcMessage) => void): Promise<string | undefined> {
    const match = EVENT_ID.exec(lastEventId);
    if (!match) return undefined;
    const [, streamId, entryId] = match;
    const entries = await this.client.xrange(this.prefix + streamId, entryId, '+');
    if (entries.length === 0 || entries[0][0] !== entryId) return undefined;
    for (let i = 1; i < entries.length; i++) {
      const [id, fields] = entries[i];
      send(`${streamId}:${id}`, JSON.parse(fields[1]) as JsonRpcMessage);
    }
    return streamId;
  }
}
