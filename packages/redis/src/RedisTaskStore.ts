import type { Redis } from 'ioredis';
import { InvalidParamsError } from '@typemcp/core';
import type { TaskInputRequest, TaskRecord, TaskStore } from '@typemcp/core';
import { checkClient, keyPrefixOf } from './keys';
import type { RedisStoreOptions } from './keys';
import { LuaScript } from './script';

// A task is a hash, `<prefix>task:<taskId>`, one field per property of the record holding that
// property's JSON; the questions and answers get a field each, `inputRequests.<key>` and
// `inputResponses.<key>`, so that asking and answering touch only their own. It expires ttlMs
// after the task's creation. Scripts compare and write whole field values and never parse JSON
// (but the owner's, a plain string), so records come back exactly as written. Beside it:
// `<prefix>tasks:owner:<owner>`, a sorted set of the owner's task ids by creation order (its
// score, from the counter `<prefix>tasks:seq`), for `list`; `<prefix>tasks:leases`, a sorted set
// of the non-terminal tasks by `leaseUntil`, for `claimExpired`; `<prefix>tasks:active:<owner>`,
// the set of the owner's non-terminal tasks, for the limit of `create`. Ids of tasks that expired
// are dropped from these sets when a script meets them.

/** The two maps of a record kept one field per key. */
const MAPS = ['inputRequests', 'inputResponses'] as const;

const TERMINAL = `local function terminal(status)
  return status == '"completed"' or status == '"failed"' or status == '"cancelled"'
end
`;

// True when some question (inputRequests.<key>) has no answer (inputResponses.<key>).
const OUTSTANDING = `local function outstanding(task)
  for _, field in ipairs(redis.call('HKEYS', task)) do
    if string.sub(field, 1, 14) == 'inputRequests.' and redis.call('HEXISTS', task, 'inputResponses.' .. string.sub(field, 15)) == 0 then return true end
  end
  return false
end
`;

// KEYS: task, owner set, leases, seq, owner set base, active set, active set base, task base.
// ARGV: taskId, expireAt (epoch ms), maxActive ('' for none), field/value pairs. Returns 0 when refused.
const CREATE = new LuaScript(`${TERMINAL}
local task, ownerSet, leases, seq, ownerBase, activeSet, activeBase, taskBase = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8]
local id, expireAt, maxActive = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
if maxActive then
  local active = 0
  for _, member in ipairs(redis.call('SMEMBERS', activeSet)) do
    local status = redis.call('HGET', taskBase .. member, 'status')
    if status and not terminal(status) then active = active + 1 else redis.call('SREM', activeSet, member) end
  end
  if active >= maxActive then return 0 end
end
local previous = redis.call('HGET', task, 'owner')
if previous and ownerBase .. cjson.decode(previous) ~= ownerSet then
  redis.call('ZREM', ownerBase .. cjson.decode(previous), id)
  redis.call('SREM', activeBase .. cjson.decode(previous), id)
end
redis.call('DEL', task)
redis.call('HSET', task, unpack(ARGV, 4))
redis.call('ZADD', ownerSet, redis.call('INCR', seq), id)
local status = redis.call('HGET', task, 'status')
local lease = tonumber(redis.call('HGET', task, 'leaseUntil'))
if terminal(status) or not lease then redis.call('ZREM', leases, id) else redis.call('ZADD', leases, lease, id) end
if terminal(status) then redis.call('SREM', activeSet, id) else redis.call('SADD', activeSet, id) end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('PEXPIREAT', task, expireAt)
local left = expireAt - now
if left > 0 and redis.call('PTTL', ownerSet) < left then redis.call('PEXPIRE', ownerSet, left) end
if left > 0 and redis.call('PTTL', activeSet) < left then redis.call('PEXPIRE', activeSet, left) end
return 1
`);

// KEYS: task, leases, active set base. ARGV: taskId, number of pairs, number of fields to
// delete, number of field prefixes to clear, then the pairs, the fields and the prefixes.
const UPDATE = new LuaScript(`${TERMINAL}
local task, leases, activeBase = KEYS[1], KEYS[2], KEYS[3]
local id, npairs, ndel, nclear = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local status = redis.call('HGET', task, 'status')
if not status then return false end
if not terminal(status) then
  local first = 5 + 2 * npairs + ndel
  for i = first, first + nclear - 1 do
    local prefix = ARGV[i]
    for _, field in ipairs(redis.call('HKEYS', task)) do
      if string.sub(field, 1, #prefix) == prefix then redis.call('HDEL', task, field) end
    end
  end
  if npairs > 0 then redis.call('HSET', task, unpack(ARGV, 5, 4 + 2 * npairs)) end
  for i = 5 + 2 * npairs, 4 + 2 * npairs + ndel do redis.call('HDEL', task, ARGV[i]) end
  local lease = tonumber(redis.call('HGET', task, 'leaseUntil'))
  local ended = terminal(redis.call('HGET', task, 'status'))
  if ended or not lease then redis.call('ZREM', leases, id) else redis.call('ZADD', leases, lease, id) end
  if ended then redis.call('SREM', activeBase .. cjson.decode(redis.call('HGET', task, 'owner')), id) end
end
return redis.call('HGETALL', task)
`);

// KEYS: task. ARGV: lastUpdatedAt (JSON), then key/question pairs. Keys asked before keep their question.
const ASK = new LuaScript(`${TERMINAL}${OUTSTANDING}
local task = KEYS[1]
local status = redis.call('HGET', task, 'status')
if not status then return false end
if not terminal(status) then
  for i = 2, #ARGV, 2 do redis.call('HSETNX', task, 'inputRequests.' .. ARGV[i], ARGV[i + 1]) end
  if outstanding(task) then redis.call('HSET', task, 'status', '"input_required"') end
  redis.call('HSET', task, 'lastUpdatedAt', ARGV[1])
end
return redis.call('HGETALL', task)
`);

// KEYS: task. ARGV: lastUpdatedAt (JSON), then key/answer pairs. Only outstanding questions take an answer.
const ANSWER = new LuaScript(`${TERMINAL}${OUTSTANDING}
local task = KEYS[1]
local status = redis.call('HGET', task, 'status')
if not status then return false end
if not terminal(status) then
  local answered = false
  for i = 2, #ARGV, 2 do
    if redis.call('HEXISTS', task, 'inputRequests.' .. ARGV[i]) == 1 and redis.call('HSETNX', task, 'inputResponses.' .. ARGV[i], ARGV[i + 1]) == 1 then answered = true end
  end
  if answered then
    redis.call('HSET', task, 'lastUpdatedAt', ARGV[1])
    if status == '"input_required"' and not outstanding(task) then redis.call('HSET', task, 'status', '"working"') end
  end
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
    // Every key of the tasks carries the hash tag {tasks}: the scripts touch several at once,
    // and on a Redis Cluster those must share a slot.
    this.prefix = keyPrefixOf(options, 'RedisTaskStore');
  }

  async create(task: TaskRecord, maxActive?: number): Promise<boolean> {
    const createdAt = Date.parse(task.createdAt);
    const expireAt = Math.ceil((Number.isNaN(createdAt) ? Date.now() : createdAt) + task.ttlMs);
    const pairs: string[] = [];
    for (const [field, value] of Object.entries(task)) {
      if (value === undefined) continue;
      if (isMap(field)) pairs.push(...mapFields(field, value as Record<string, unknown>));
      else pairs.push(field, JSON.stringify(value));
    }
    const created = await CREATE.run(
      this.client,
      [
        this.taskKey(task.taskId),
        this.ownerKey(task.owner),
        this.leasesKey,
        `${this.prefix}{tasks}tasks:seq`,
        `${this.prefix}{tasks}tasks:owner:`,
        this.activeKey(task.owner),
        `${this.prefix}{tasks}tasks:active:`,
        `${this.prefix}{tasks}task:`,
      ],
      [task.taskId, expireAt, maxActive === undefined ? '' : maxActive, ...pairs],
    );
    return created === 1;
  }

  /** HGETALL: one command. */
  async get(taskId: string): Promise<TaskRecord | undefined> {
    const fields = await this.client.hgetall(this.taskKey(taskId));
    if (Object.keys(fields).length === 0) return undefined;
    return decode(Object.entries(fields).flat());
  }

  async update(taskId: string, changes: Partial<TaskRecord>): Promise<TaskRecord | undefined> {
    const pairs: string[] = [];
    const removed: string[] = [];
    const cleared: string[] = [];
    for (const [field, value] of Object.entries(changes)) {
      if (FIXED.has(field)) continue;
      if (isMap(field)) {
        // A map is replaced whole: its fields go, the given ones come.
        cleared.push(`${field}.`);
        if (value !== undefined) pairs.push(...mapFields(field, value as Record<string, unknown>));
        continue;
      }
      const json = value === undefined ? undefined : JSON.stringify(value);
      if (json === undefined) removed.push(field);
      else pairs.push(field, json);
    }
    const reply = (await UPDATE.run(
      this.client,
      [this.taskKey(taskId), this.leasesKey, `${this.prefix}{tasks}tasks:active:`],
      [taskId, pairs.length / 2, removed.length, cleared.length, ...pairs, ...removed, ...cleared],
    )) as string[] | null;
    return reply === null ? undefined : decode(reply);
  }

  async ask(taskId: string, requests: Record<string, TaskInputRequest>, lastUpdatedAt: string): Promise<TaskRecord | undefined> {
    const pairs = Object.entries(requests).flatMap(([key, request]) => [key, JSON.stringify(request)]);
    const reply = (await ASK.run(this.client, [this.taskKey(taskId)], [JSON.stringify(lastUpdatedAt), ...pairs])) as string[] | null;
    return reply === null ? undefined : decode(reply);
  }

  async answer(taskId: string, responses: Record<string, Record<string, unknown>>, lastUpdatedAt: string): Promise<TaskRecord | undefined> {
    const pairs = Object.entries(responses).flatMap(([key, response]) => [key, JSON.stringify(response)]);
    const reply = (await ANSWER.run(this.client, [this.taskKey(taskId)], [JSON.stringify(lastUpdatedAt), ...pairs])) as string[] | null;
    return reply === null ? undefined : decode(reply);
  }

  async list(owner: string, cursor: string | undefined, limit: number): Promise<{ tasks: TaskRecord[]; nextCursor?: string }> {
    if (cursor !== undefined && !/^\d+$/.test(cursor)) throw new InvalidParamsError(`Invalid cursor for tasks/list: "${cursor}" was not returned by this server`);
    const [more, last, hashes] = (await LIST.run(this.client, [this.ownerKey(owner), `${this.prefix}{tasks}task:`], [cursor ?? '-1', Math.max(0, Math.floor(limit))])) as [number, string, string[][]];
    const tasks = hashes.map(decode);
    return more === 1 ? { tasks, nextCursor: last } : { tasks };
  }

  async renew(runner: string, taskIds: string[], leaseUntil: number): Promise<string[]> {
    if (taskIds.length === 0) return [];
    return (await RENEW.run(this.client, [this.leasesKey, `${this.prefix}{tasks}task:`], [JSON.stringify(runner), JSON.stringify(leaseUntil), ...taskIds])) as string[];
  }

  async claimExpired(runner: string, now: number, leaseUntil: number): Promise<TaskRecord[]> {
    const claimed = (await CLAIM.run(this.client, [this.leasesKey, `${this.prefix}{tasks}task:`], [JSON.stringify(runner), now, JSON.stringify(leaseUntil)])) as string[][];
    return claimed.map(decode);
  }

  private taskKey(taskId: string): string {
    return `${this.prefix}{tasks}task:${taskId}`;
  }

  private ownerKey(owner: string): string {
    return `${this.prefix}{tasks}tasks:owner:${owner}`;
  }

  private activeKey(owner: string): string {
    return `${this.prefix}{tasks}tasks:active:${owner}`;
  }

  private get leasesKey(): string {
    return `${this.prefix}{tasks}tasks:leases`;
  }
}

function isMap(field: string): field is (typeof MAPS)[number] {
  return (MAPS as readonly string[]).includes(field);
}

/** A map's entries as hash fields: `<map>.<key>` and the value's JSON. */
function mapFields(map: string, entries: Record<string, unknown>): string[] {
  return Object.entries(entries).flatMap(([key, value]) => [`${map}.${key}`, JSON.stringify(value)]);
}

/** A record from its hash's fields (field, value, field, value, …), the maps gathered from their fields. */
function decode(fields: string[]): TaskRecord {
  const task: Record<string, unknown> = {};
  for (let i = 0; i < fields.length; i += 2) {
    const field = fields[i];
    const dot = field.indexOf('.');
    const map = dot > 0 ? field.slice(0, dot) : undefined;
    if (map !== undefined && isMap(map)) ((task[map] ??= {}) as Record<string, unknown>)[field.slice(dot + 1)] = JSON.parse(fields[i + 1]);
    else task[field] = JSON.parse(fields[i + 1]);
  }
  return task as unknown as TaskRecord;
}
