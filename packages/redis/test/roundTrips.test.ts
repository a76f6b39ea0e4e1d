import type { Redis } from 'ioredis';
import type { JsonRpcMessage, TaskRecord } from '@typemcp/core';
import { RedisBroadcaster, RedisEventStore, RedisSessionStore, RedisTaskStore } from '@typemcp/redis';
import { countCommands } from '../../../test-support/redisServer';
import { useRedis } from './redisTestSupport';

const redis = useRedis();

/** The commands `client` sends, and the socket writes (round trips) they take, while `work` runs. */
async function traffic(client: Redis, work: () => Promise<unknown>): Promise<{ commands: string[]; writes: number }> {
  await client.ping(); // connected, scripts aside
  const commands: string[] = [];
  const send = client.sendCommand.bind(client);
  const spy = jest.spyOn(client, 'sendCommand').mockImplementation((command, stream) => {
    commands.push(command.name);
    return send(command, stream);
  });
  const write = jest.spyOn(client.stream, 'write');
  try {
    await work();
  } finally {
    spy.mockRestore();
  }
  const writes = write.mock.calls.length;
  write.mockRestore();
  return { commands, writes };
}

const message: JsonRpcMessage = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } };

function task(taskId: string): TaskRecord {
  const now = new Date().toISOString();
  return { taskId, status: 'working', createdAt: now, lastUpdatedAt: now, ttlMs: 60_000, owner: 'o', request: { method: 'tools/call', params: {} }, rerunnable: true, runner: 'r', leaseUntil: Date.now() - 1 };
}

it('every operation is one round trip', async () => {
  const client = redis.client();
  const keyPrefix = redis.prefix();
  const sessions = new RedisSessionStore(client, { keyPrefix });
  const events = new RedisEventStore(client, { keyPrefix });
  const tasks = new RedisTaskStore(client, { keyPrefix });
  const broadcaster = new RedisBroadcaster(client, { keyPrefix });
  const record = { id: 's', state: 'ready' as const, protocolVersion: '2025-11-25', clientCapabilities: {}, subscriptions: [] };
  // Scripts are loaded on first use (EVALSHA, then EVAL on NOSCRIPT): warm them up.
  await tasks.create(task('warm'));
  await tasks.update('warm', { statusMessage: 'w' });
  await tasks.list('o', undefined, 1);
  await tasks.renew('r', ['warm'], 1);
  await tasks.claimExpired('r', 0, 1);
  await tasks.ask('warm', { k: { method: 'roots/list' } }, 'w');
  await tasks.answer('warm', { k: { roots: [] } }, 'w');
  const eventId = await events.store('stream', message);
  await events.store('stream', message);

  const expectations: Array<[string, () => Promise<unknown>, string[]]> = [
    ['sessions.set', () => sessions.set(record, 60_000), ['set']],
    ['sessions.get', () => sessions.get('s'), ['get']],
    ['sessions.touch', () => sessions.touch('s', 60_000), ['pexpire']],
    ['sessions.delete', () => sessions.delete('s'), ['del']],
    ['events.store', () => events.store('stream', message), ['evalsha']],
    ['events.replayAfter', () => events.replayAfter(eventId, () => {}), ['xrange']],
    ['broadcaster.publish', () => broadcaster.publish('topic', { a: 1 }), ['publish']],
    ['tasks.create', () => tasks.create(task('t')), ['evalsha']],
    ['tasks.get', () => tasks.get('t'), ['hgetall']],
    ['tasks.update', () => tasks.update('t', { statusMessage: 'x' }), ['evalsha']],
    ['tasks.ask', () => tasks.ask('t', { k: { method: 'roots/list' } }, 'x'), ['evalsha']],
    ['tasks.answer', () => tasks.answer('t', { k: { roots: [] } }, 'x'), ['evalsha']],
    ['tasks.list', () => tasks.list('o', undefined, 10), ['evalsha']],
    ['tasks.renew', () => tasks.renew('r', ['t'], Date.now() + 1000), ['evalsha']],
    ['tasks.claimExpired', () => tasks.claimExpired('r2', Date.now() + 5000, Date.now() + 10_000), ['evalsha']],
  ];
  const seen: Record<string, { commands: string[]; writes: number }> = {};
  for (const [name, work] of expectations) seen[name] = await traffic(client, work);
  expect(seen).toEqual(Object.fromEntries(expectations.map(([name, , commands]) => [name, { commands, writes: 1 }])));
  await broadcaster.close();
});

it('countCommands counts what Redis ran (scripts’ own calls included)', async () => {
  const client = redis.client();
  const sessions = new RedisSessionStore(client, { keyPrefix: redis.prefix() });
  await client.ping();
  const { total, byCommand } = await countCommands(redis.server.port, async () => {
    await sessions.set({ id: 'c', state: 'ready', protocolVersion: '2025-11-25', clientCapabilities: {}, subscriptions: [] }, 1000);
    await sessions.get('c');
  });
  expect(byCommand).toEqual({ set: 1, get: 1 });
  expect(total).toBe(2);
});
