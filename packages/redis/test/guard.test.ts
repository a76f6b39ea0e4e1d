import { UnavailableError } from '@typemcp/core';
import type { Redis } from 'ioredis';
import { RedisGuard } from '../src/guard';

/** A stand-in for an ioredis client: commands answer when `answering`, else never. */
function fakeClient() {
  const state = { answering: true, sent: [] as string[], pings: 0 };
  const reply = <T>(command: string, value: T) => {
    state.sent.push(command);
    return state.answering ? Promise.resolve(value) : new Promise<T>(() => {});
  };
  const client = {
    get: (key: string) => reply(`get ${key}`, 'value'),
    ping: () => {
      state.pings++;
      return reply('ping', 'PONG');
    },
    pipeline: () => {
      const queued: string[] = [];
      const batch = {
        set: (key: string, _value: string) => (queued.push(`set ${key}`), batch),
        exec: () => reply(`exec ${queued.join(',')}`, [[null, 'OK']]),
      };
      return batch;
    },
    duplicate: () => 'the subscriber connection',
    status: 'ready',
  };
  return { client: client as unknown as Redis, state };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('RedisGuard', () => {
  it('passes commands, batches and everything else through while Redis answers', async () => {
    const { client, state } = fakeClient();
    const guarded = new RedisGuard(client, { commandTimeoutMs: 100, probeIntervalMs: 20 }).wrap();
    expect(await guarded.get('k')).toBe('value');
    expect(await guarded.pipeline().set('a', '1').set('b', '2').exec()).toEqual([[null, 'OK']]);
    expect(guarded.duplicate()).toBe('the subscriber connection');
    expect(guarded.status).toBe('ready');
    expect(state.sent).toEqual(['get k', 'exec set a,set b']);
  });

  it('fails a command at the bound, then fails fast without sending, and is up again at the first answered PING', async () => {
    const { client, state } = fakeClient();
    const changes: boolean[] = [];
    const guard = new RedisGuard(client, { commandTimeoutMs: 50, probeIntervalMs: 20, onChange: (up) => changes.push(up) });
    const guarded = guard.wrap();
    state.answering = false;
    const started = Date.now();
    const first = await guarded.get('k').catch((error: unknown) => error);
    expect(first).toBeInstanceOf(UnavailableError);
    expect((first as UnavailableError).message).toBe('Redis did not answer within 50 ms');
    expect(Date.now() - started).toBeLessThan(500);
    expect(guard.up).toBe(false);

    const sent = state.sent.length;
    const fast = await guarded.pipeline().set('x', '1').exec().catch((error: unknown) => error);
    expect(fast).toBeInstanceOf(UnavailableError);
    expect((fast as UnavailableError).retryAfterSec).toBe(1);
    expect(await guarded.get('k').catch((error: unknown) => (error as Error).message)).toMatch(/^Redis has not answered since .*; failing fast until it does$/);
    expect(state.sent.filter((command) => command !== 'ping')).toHaveLength(sent);

    state.answering = true;
    for (let i = 0; i < 50 && !guard.up; i++) await sleep(10);
    expect(guard.up).toBe(true);
    expect(await guarded.get('k')).toBe('value');
    expect(changes).toEqual([false, true]);
    guard.close();
  });

  it('stops probing when closed', async () => {
    const { client, state } = fakeClient();
    const guard = new RedisGuard(client, { commandTimeoutMs: 20, probeIntervalMs: 10 });
    state.answering = false;
    await guard.wrap().get('k').catch(() => undefined);
    guard.close();
    const pings = state.pings;
    await sleep(60);
    expect(state.pings).toBe(pings);
  });
});
