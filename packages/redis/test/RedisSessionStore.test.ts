import { DefinitionError } from '@typemcp/core';
import type { SessionRecord } from '@typemcp/core';
import { RedisSessionStore } from '@typemcp/redis';
import { sleep, useRedis } from './redisTestSupport';

const redis = useRedis();

function record(id: string, changes: Partial<SessionRecord> = {}): SessionRecord {
  return { id, state: 'ready', protocolVersion: '2025-11-25', clientCapabilities: { sampling: {} }, clientInfo: { name: 'c', version: '1' }, logLevel: 'info', subscriptions: ['a://b'], owner: 'alice', ...changes };
}

it('keeps a record as JSON under <prefix>session:<id> and gives a copy back', async () => {
  const client = redis.client();
  const keyPrefix = redis.prefix();
  const store = new RedisSessionStore(client, { keyPrefix });
  const written = record('s1');
  await store.set(written, 60_000);
  const read = await store.get('s1');
  expect(read).toEqual(written);
  expect(read).not.toBe(written);
  expect(await client.get(`${keyPrefix}session:s1`)).toBe(JSON.stringify(written));
  const ttl = await client.pttl(`${keyPrefix}session:s1`);
  expect(ttl).toBeGreaterThan(59_000);
  expect(ttl).toBeLessThanOrEqual(60_000);
});

it('is undefined for an unknown id; set overwrites', async () => {
  const store = new RedisSessionStore(redis.client(), { keyPrefix: redis.prefix() });
  expect(await store.get('nope')).toBeUndefined();
  await store.set(record('s'), 60_000);
  await store.set(record('s', { state: 'initializing', subscriptions: [] }), 60_000);
  expect(await store.get('s')).toMatchObject({ state: 'initializing', subscriptions: [] });
});

it('forgets a record ttlMs after it was written; touch extends its life; both replicas see the same', async () => {
  const keyPrefix = redis.prefix();
  const a = new RedisSessionStore(redis.client(), { keyPrefix });
  const b = new RedisSessionStore(redis.client(), { keyPrefix });
  await a.set(record('short'), 150);
  await a.set(record('touched'), 150);
  await sleep(80);
  expect(await b.touch('touched', 400)).toBe(true);
  await sleep(120);
  expect(await b.get('short')).toBeUndefined();
  expect(await a.get('touched')).toEqual(record('touched'));
  expect(await a.touch('short', 1000)).toBe(false);
});

it('touch is false for unknown and deleted records; delete forgets at once', async () => {
  const store = new RedisSessionStore(redis.client(), { keyPrefix: redis.prefix() });
  expect(await store.touch('ghost', 1000)).toBe(false);
  await store.set(record('d'), 60_000);
  await store.delete('d');
  await store.delete('d');
  expect(await store.get('d')).toBeUndefined();
  expect(await store.touch('d', 1000)).toBe(false);
});

it('a life of zero or less ends at once, as in memory', async () => {
  const store = new RedisSessionStore(redis.client(), { keyPrefix: redis.prefix() });
  await store.set(record('zero'), 0);
  expect(await store.get('zero')).toBeUndefined();
  await store.set(record('t'), 60_000);
  expect(await store.touch('t', -5)).toBe(true);
  expect(await store.get('t')).toBeUndefined();
});

it('servers with other prefixes do not see each other; the default prefix is typemcp:', async () => {
  const client = redis.client();
  const a = new RedisSessionStore(client, { keyPrefix: redis.prefix() });
  const b = new RedisSessionStore(client, { keyPrefix: redis.prefix() });
  await a.set(record('same'), 60_000);
  expect(await b.get('same')).toBeUndefined();
  const byDefault = new RedisSessionStore(client);
  await byDefault.set(record('default-prefix'), 60_000);
  expect(await client.exists('typemcp:session:default-prefix')).toBe(1);
  await byDefault.delete('default-prefix');
});

it('refuses what is not a client, and a prefix that is not a string', () => {
  expect(() => new RedisSessionStore({} as never)).toThrow(DefinitionError);
  expect(() => new RedisSessionStore('redis://x' as never)).toThrow(/ioredis client \(new Redis\(url\)/);
  expect(() => new RedisSessionStore(redis.client(), { keyPrefix: 3 as never })).toThrow(/keyPrefix must be a string/);
});

it('replaces a record only when the stored version is the one expected (compare-and-set), atomically', async () => {
  const client = redis.client();
  const keyPrefix = redis.prefix();
  const store = new RedisSessionStore(client, { keyPrefix });
  // Nothing stored: only `undefined` is expected.
  expect(await store.replace(record('s', { version: 1 }), 60_000, 3)).toBe(false);
  expect(await store.replace(record('s', { version: 1 }), 60_000, undefined)).toBe(true);
  expect(await store.replace(record('s', { version: 2 }), 60_000, undefined)).toBe(false);
  // Two writers that both read version 1: the first wins, the second must read again.
  expect(await store.replace(record('s', { version: 2, logLevel: 'debug' }), 60_000, 1)).toBe(true);
  expect(await store.replace(record('s', { version: 2, logLevel: 'error' }), 60_000, 1)).toBe(false);
  expect(await store.get('s')).toMatchObject({ version: 2, logLevel: 'debug' });
  expect(await client.pttl(`${keyPrefix}session:s`)).toBeGreaterThan(59_000);
  // A record written without a version counts as none.
  await store.set(record('old'), 60_000);
  expect(await store.replace(record('old', { version: 1 }), 60_000, undefined)).toBe(true);
});
