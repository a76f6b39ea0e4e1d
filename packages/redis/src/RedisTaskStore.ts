import type { Redis } from 'ioredis';
import { InvalidParamsError } from '@typemcp/core';
import type { TaskRecord, TaskStore } from '@typemcp/core';
import { checkClient, keyPrefixOf } from './keys';
import type { RedisStoreOptions } from './keys';
import { LuaScript } from './script';

// A task is a hash, `<prefix>task:<taskId>`, one field per property of the record holding that
// property's JSON; it expires ttlMs after the task's creation. Scripts compare and write whole
// field values and never parse JSON, so records come back exactly as written. Beside it:
// `<prefix>tasks:owner:<owner>`, a sorted set of the owner's task ids by creation order (its
// score, from the counter `<prefix>tasks:seq`), for `list`; `<prefix>tasks:leases`, a sorted set
// of the non-terminal tasks by `leaseUntil`, for `claimExpired`. Ids of tasks that expired are
// dropped from both sets when a script meets them.

const TERMINAL = `local function terminal(status)
  return status == '"completed"' or status == '"failed"' or status == '"cancelled"'
end
`;

// KEYS: task, owner set, leases, seq, owner set base. ARGV: taskId, expireAt (epoch ms), field/value pairs.
const CREATE = new LuaScript(`${TERMINAL}
local task, ownerSet, leases, seq, ownerBase = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local id, expireAt = ARGV[1], tonumber(ARGV[2])
local previous = redis.call('HGET', task, 'owner')
if previous and ownerBase .. cjson.decode(previous) ~= ownerSet then redis.call('ZREM', ownerBase .. cjson.decode(previous), id) end
redis.call('DEL', task)
redis.call('HSET', task, unpack(ARGV, 3))
redis.call('ZADD', ownerSet, redis.call('INCR', seq), id)
local status = redis.call('HGET', task, 'status')
local lease = tonumber(redis.call('HGET', task, 'leaseUntil'))
if terminal(status) or not lease then redis.call('ZREM', leases, id) else redis.call('ZADD', leases, lease, id) end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('PEXPIREAT', task, expireAt)
local left = expireAt - now
if left > 0 and redis.call('PTTL', ownerSet) < left then redis.call('PEXPIRE', ownerSet, left) end
return 1
`);

// KEYS: task, leases. ARGV: taskId, number of pairs, field/value pairs, then fields to delete.
const UPDATE = new LuaScript(`${TERMINAL}
local task, leases = KEYS[1], KEYS[2]
local id, npairs = ARGV[1], tonumber(ARGV[2])
local status = redis.call('HGET', task, 'status')
if not status then return false end
if not terminal(status) then
  if npairs > 0 then redis.call('HSET', task, unpack(ARGV, 3, 2 + 2 * npairs)) end
  for i = 3 + 2 * npairs, #ARGV do redis.call('HDEL', task, ARGV[i]) end
  local lease = tonumber(redis.call('HGET', task, 'leaseUntil'))
  if terminal(redis.call('HGET', task, 'status')) or not lease then redis.call('ZREM', leases, id) else redis.call('ZADD', leases, lease, id) end
end
return redis.call('HGETALL', task)
`);

// KEYS: owner set, task base. ARGV: after (a score), limit. Returns { more, last score, hash... }.
const LIST = new LuaScript(`
local ownerSet, taskBase = KEYS[1], KEYS[2]
local start, limit = '(' .. ARGV[1], tonumber(ARGV[2])
local out, more, last = {}, 0, ARGV[1]
while more == 0 do
  local page = redis.call('ZRANGEBYSCORE', ownerSet, start, '+inf', 'WITHSCORES', 'LIMIT', 0, 100)
  for i = 1, #page, 2 do
    local fields = redis.call('HGETALL', taskBase .. page[i])
    if #fields == 0 then
      redis.call('ZREM', ownerSet, page[i])
    elseif #out == limit then
      more = 1
      break
    else
      out[#out + 1] = fields
      last = page[i + 1]
    end
    start = '(' .. page[i + 1]
  end
  if #page < 200 then break end
end
return { more, last, out }
`);

// KEYS: leases, task base. ARGV: runner (JSON), leaseUntil, task ids. Returns the ids still held.
const RENEW = new LuaScript(`${TERMINAL}
local leases, taskBase = KEYS[1], KEYS[2]
local held = {}
for i = 3, #ARGV do
  local task = taskBase .. ARGV[i]
  local state = redis.call('HMGET', task, 'status', 'runner')
  if state[1] and not terminal(state[1]) and state[2] == ARGV[1] then
    redis.call('HSET', task, 'leaseUntil', ARGV[2])
    redis.call('ZADD', leases, ARGV[2], ARGV[i])
    held[#held + 1] = ARGV[i]
  end
end
return held
`);

// KEYS: leases, task base. ARGV: runner (JSON), now, leaseUntil. Returns the claimed hashes.
const CLAIM = new LuaScript(`${TERMINAL}
local leases, taskBase = KEYS[1], KEYS[2]
local claimed = {}
for _, id in ipairs(redis.call('ZRANGEBYSCORE', leases, '-inf', '(' .. ARGV[2])) do
  local task = taskBase .. id
  local status = redis.call('HGET', task, 'status')
  if not status or terminal(status) then
    redis.call('ZREM', leases, id)
  else
    redis.call('HSET', task, 'runner', ARGV[1], 'leaseUntil', ARGV[3])
    redis.call('ZADD', leases, ARGV[3], id)
    claimed[#claimed + 1] = redis.call('HGETALL', task)
  end
end
return claimed
`);

/** Properties `update` never changes. */
const FIXED = new Set(['taskId', 'owner', 'createdAt', 'ttlMs']);

/**
 * Tasks in Redis, shared by the replicas of a server. Each operation is one round trip (a
 * command or a Lua script); `update`, `renew` and `claimExpired` are atomic, so two replicas
 * never both claim a task and a terminal task never changes again. Records expire `ttlMs`
 * after their `createdAt`.
 */
export class RedisTaskStore implements TaskStore {
  private readonly prefix: string;

  constructor(
    private readonly client: Redis,
    options?: RedisStoreOptions,
  ) {
    checkClient(client, 'RedisTaskStore');
    this.prefix = keyPrefixOf(options, 'RedisTaskStore');
  }

  async create(task: TaskRecord): Promise<void> {
    const createdAt = Date.parse(task.createdAt);
    const expireAt = Math.ceil((Number.isNaN(createdAt) ? Date.now() : createdAt) + task.ttlMs);
    const pairs: string[] = [];
    for (const [field, value] of Object.entries(task)) if (value !== undefined) pairs.push(field, JSON.stringify(value));
    await CREATE.run(
      this.client,
      [this.taskKey(task.taskId), this.ownerKey(task.owner), this.leasesKey, `${this.prefix}tasks:seq`, `${this.prefix}tasks:owner:`],
      [task.taskId, expireAt, ...pairs],
    );
  }

  /** HGETALL: one command. */
  async get(taskId: string): Promise<TaskRecord | undefined> {
    const fields = await this.client.hgetall(this.taskKey(taskId));
    if (Object.keys(fields).length === 0) return undefined;
    const task: Record<string, unknown> = {};
    for (const [field, value] of Object.entries(fields)) task[field] = JSON.parse(value);
    return task as unknown as TaskRecord;
  }

  async update(taskId: string, changes: Partial<TaskRecord>): Promise<TaskRecord | undefined> {
    const pairs: string[] = [];
    const removed: string[] = [];
    for (const [field, value] of Object.entries(changes)) {
      if (FIXED.has(field)) continue;
      const json = value === undefined ? undefined : JSON.stringify(value);
      if (json === undefined) removed.push(field);
      else pairs.push(field, json);
    }
    const reply = (await UPDATE.run(this.client, [this.taskKey(taskId), this.leasesKey], [taskId, pairs.length / 2, ...pairs, ...removed])) as string[] | null;
    return reply === null ? undefined : decode(reply);
  }

  async list(owner: string, cursor: string | undefined, limit: number): Promise<{ tasks: TaskRecord[]; nextCursor?: string }> {
    if (cursor !== undefined && !/^\d+$/.test(cursor)) throw new InvalidParamsError(`Invalid cursor for tasks/list: "${cursor}" was not returned by this server`);
    const [more, last, hashes] = (await LIST.run(this.client, [this.ownerKey(owner), `${this.prefix}task:`], [cursor ?? '-1', Math.max(0, Math.floor(limit))])) as [number, string, string[][]];
    const tasks = hashes.map(decode);
    return more === 1 ? { tasks, nextCursor: last } : { tasks };
  }

  async renew(runner: string, taskIds: string[], leaseUntil: number): Promise<string[]> {
    if (taskIds.length === 0) return [];
    return (await RENEW.run(this.client, [this.leasesKey, `${this.prefix}task:`], [JSON.stringify(runner), JSON.stringify(leaseUntil), ...taskIds])) as string[];
  }

  async claimExpired(runner: string, now: number, leaseUntil: number): Promise<TaskRecord[]> {
    const claimed = (await CLAIM.run(this.client, [this.leasesKey, `${this.prefix}task:`], [JSON.stringify(runner), now, JSON.stringify(leaseUntil)])) as string[][];
    return claimed.map(decode);
  }

  private taskKey(taskId: string): string {
    return `${this.prefix}task:${taskId}`;
  }

  private ownerKey(owner: string): string {
    return `${this.prefix}tasks:owner:${owner}`;
  }

  private get leasesKey(): string {
    return `${this.prefix}tasks:leases`;
  }
}

function decode(fields: string[]): TaskRecord {
  const task: Record<string, unknown> = {};
  for (let i = 0; i < fields.length; i += 2) task[fields[i]] = JSON.parse(fields[i + 1]);
  return task as unknown as TaskRecord;
}
