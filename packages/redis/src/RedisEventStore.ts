import type { Redis } from 'ioredis';
import type { EventStore, JsonRpcMessage } from '@typemcp/core';
import { checkClient, keyPrefixOf, positiveInteger } from './keys';
import type { RedisStoreOptions } from './keys';
import { LuaScript } from './script';

/** Options of a RedisEventStore. */
export interface RedisEventStoreOptions extends RedisStoreOptions {
  /** The events kept per SSE stream; older ones are forgotten (default 1000). */
  maxEventsPerStream?: number;
  /** A stream nothing was stored on for this long is forgotten whole (default 3 600 000: one hour). */
  streamTtlMs?: number;
}

const EVENT_ID = /^([\s\S]*):(\d+-\d+)$/;

/**
 * Records one event: KEYS = the stream, its hash of event keys; ARGV = the message, the
 * event's key ('' for none), the cap, the time to live. A key already recorded answers its
 * event's id. The oldest events beyond the cap go, and their keys with them.
 */
const STORE = new LuaScript(`
local key = ARGV[2]
if key ~= '' then
  local known = redis.call('HGET', KEYS[2], key)
  if known then return known end
end
local id
if key ~= '' then
  id = redis.call('XADD', KEYS[1], '*', 'm', ARGV[1], 'k', key)
  redis.call('HSET', KEYS[2], key, id)
else
  id = redis.call('XADD', KEYS[1], '*', 'm', ARGV[1])
end
local excess = redis.call('XLEN', KEYS[1]) - tonumber(ARGV[3])
if excess > 0 then
  for _, entry in ipairs(redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', excess)) do
    if entry[2][4] then redis.call('HDEL', KEYS[2], entry[2][4]) end
  end
  redis.call('XTRIM', KEYS[1], 'MAXLEN', ARGV[3])
end
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('PEXPIRE', KEYS[2], ARGV[4])
return id
`);

/**
 * SSE events in Redis for `Last-Event-ID` resumption on any replica: one Redis stream per SSE
 * stream (`<prefix>events:{<streamId>}`), capped at `maxEventsPerStream` entries and expiring
 * `streamTtlMs` after its last event, beside a hash of the keys of the events replicas record
 * together (`<prefix>events:{<streamId>}:keys`), so each is recorded once. Both keys share a
 * hash tag: one Redis Cluster slot. An event id is `<streamId>:<Redis entry id>`: unique across
 * streams and replicas, increasing along its stream, and it names its stream, so a replay
 * reads only the entries after it (XRANGE, O(log n + events replayed)).
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

  /** One script: a key already recorded answers its event; else XADD, the cap, the time to live. */
  async store(streamId: string, message: JsonRpcMessage, key?: string): Promise<string> {
    const stream = this.streamKey(streamId);
    const entryId = (await STORE.run(this.client, [stream, `${stream}:keys`], [JSON.stringify(message), key ?? '', this.maxEvents, this.ttlMs])) as string;
    return `${streamId}:${entryId}`;
  }

  /** One XRANGE from the event itself: undefined when it is not (or no longer) in its stream. */
  async replayAfter(lastEventId: string, send: (eventId: string, message: JsonRpcMessage) => void): Promise<string | undefined> {
    const match = EVENT_ID.exec(lastEventId);
    if (!match) return undefined;
    const [, streamId, entryId] = match;
    const entries = await this.client.xrange(this.streamKey(streamId), entryId, '+');
    if (entries.length === 0 || entries[0][0] !== entryId) return undefined;
    for (let i = 1; i < entries.length; i++) {
      const [id, fields] = entries[i];
      send(`${streamId}:${id}`, JSON.parse(fields[1]) as JsonRpcMessage);
    }
    return streamId;
  }

  private streamKey(streamId: string): string {
    return `${this.prefix}{${streamId}}`;
  }
}
