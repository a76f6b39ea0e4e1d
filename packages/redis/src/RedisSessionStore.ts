import type { Redis } from 'ioredis';
import type { SessionRecord, SessionStore } from '@typemcp/core';
import { checkClient, keyPrefixOf } from './keys';
import type { RedisStoreOptions } from './keys';

/**
 * Handshake-era sessions in Redis: one string key per session (`<prefix>session:<id>`, the
 * record as JSON) that expires `ttlMs` after it was last written or touched. Every operation
 * is one command, so one round trip.
 */
export class RedisSessionStore implements SessionStore {
  private readonly prefix: string;

  constructor(
    private readonly client: Redis,
    options?: RedisStoreOptions,
  ) {
    checkClient(client, 'RedisSessionStore');
    this.prefix = `${keyPrefixOf(options, 'RedisSessionStore')}session:`;
  }

  /** GET: the record, or undefined when it is gone (deleted or expired). */
  async get(id: string): Promise<SessionRecord | undefined> {
    const json = await this.client.get(this.prefix + id);
    return json === null ? undefined : (JSON.parse(json) as SessionRecord);
  }

  /** SET … PX ttlMs: writes the record and restarts its life. */
  async set(record: SessionRecord, ttlMs: number): Promise<void> {
    const key = this.prefix + record.id;
    // A life of zero or less ends at once, as in memory.
    if (!(ttlMs > 0)) await this.client.del(key);
    else await this.client.set(key, JSON.stringify(record), 'PX', Math.ceil(ttlMs));
  }

  /** PEXPIRE: extends the record's life; false when it is gone. */
  async touch(id: string, ttlMs: number): Promise<boolean> {
    const key = this.prefix + id;
    if (!(ttlMs > 0)) return (await this.client.del(key)) === 1;
    return (await this.client.pexpire(key, Math.ceil(ttlMs))) === 1;
  }

  /** DEL. */
  async delete(id: string): Promise<void> {
    await this.client.del(this.prefix + id);
  }
}
