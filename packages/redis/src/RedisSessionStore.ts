import type { Redis } from 'ioredis';
import type { SessionRecord, SessionStore } from '@typemcp/core';
import { checkClient, keyPrefixOf } from './keys';
import type { RedisStoreOptions } from './keys';
import { LuaScript } from './script';

/**
 * SET … PX only when the stored record's version is ARGV[3] ('' : nothing stored, or a record
 * without a version): compare-and-set in one round trip, atomic in Redis.
 */
const REPLACE = new LuaScript(`
local current = redis.call('GET', KEYS[1])
local version = nil
if current then version = cjson.decode(current)['version'] end
if type(version) ~= 'number' then version = nil end
if ARGV[3] == '' then
  if version ~= nil then return 0 end
elseif version ~= tonumber(ARGV[3]) then
  return 0
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
`);

/**
 * Handshake-era sessions in Redis: one string key per session (`<prefix>session:<id>`, the
 * record as JSON) that expires `ttlMs` after it was last written or touched. Every operation
 * is one command (or one script), so one round trip; `replace` compares the version and writes
 * atomically.
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

  /** The script above: writes the record only if the stored version is still `expectedVersion`. */
  async replace(record: SessionRecord, ttlMs: number, expectedVersion: number | undefined): Promise<boolean> {
    if (!(ttlMs > 0)) {
      await this.set(record, ttlMs);
      return true;
    }
    const written = await REPLACE.run(this.client, [this.prefix + record.id], [JSON.stringify(record), Math.ceil(ttlMs), expectedVersion === undefined ? '' : String(expectedVersion)]);
    return written === 1;
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
