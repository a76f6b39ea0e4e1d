import { MemoryRateLimitStore } from '@typemcp/guards';
import type { RateRule } from '@typemcp/guards';
import { describeRateLimitStore } from '../../../test-support/guardStoreContracts';

// The contract every store meets, on real time (the Redis store runs it too).
describeRateLimitStore('MemoryRateLimitStore', () => new MemoryRateLimitStore());

/** A clock the test moves. */
function fakeClock(start = 1_000_000) {
  const clock = { t: start, now: () => clock.t };
  return clock;
}

const window = (limit: number, windowMs: number): RateRule => ({ limit, windowMs, algorithm: 'sliding-window' });
const bucket = (limit: number, windowMs: number): RateRule => ({ limit, windowMs, algorithm: 'token-bucket' });

describe('MemoryRateLimitStore, sliding window', () => {
  it('allows limit requests in any window and says exactly when the oldest leaves it', async () => {
    const clock = fakeClock();
    const store = new MemoryRateLimitStore({ now: clock.now });
    const rule = window(3, 1000);
    expect(await store.take('k', rule)).toEqual({ allowed: true, remaining: 2, retryAfterMs: 0 });
    clock.t += 100;
    expect(await store.take('k', rule)).toEqual({ allowed: true, remaining: 1, retryAfterMs: 0 });
    clock.t += 100;
    expect(await store.take('k', rule)).toEqual({ allowed: true, remaining: 0, retryAfterMs: 0 });
    clock.t += 300; // 500 ms after the first
    expect(await store.take('k', rule)).toEqual({ allowed: false, remaining: 0, retryAfterMs: 500 });
    clock.t += 499;
    expect(await store.take('k', rule)).toEqual({ allowed: false, remaining: 0, retryAfterMs: 1 });
    clock.t += 1; // the first request left the window: one slot, and the second leaves 100 ms later
    expect(await store.take('k', rule)).toEqual({ allowed: true, remaining: 0, retryAfterMs: 0 });
    expect(await store.take('k', rule)).toEqual({ allowed: false, remaining: 0, retryAfterMs: 100 });
  });

  it('does not count refused requests, and counts keys apart', async () => {
    const clock = fakeClock();
    const store = new MemoryRateLimitStore({ now: clock.now });
    const rule = window(1, 1000);
    expect((await store.take('a', rule)).allowed).toBe(true);
    for (let i = 0; i < 5; i++) {
      clock.t += 100;
      expect((await store.take('a', rule)).allowed).toBe(false);
    }
    expect((await store.take('b', rule)).allowed).toBe(true);
    clock.t = 1_000_000 + 1000;
    // Refused requests did not push the window: the first allowed one alone counted.
    expect((await store.take('a', rule)).allowed).toBe(true);
  });

  it('is exact over many windows (a fixed window would allow a double burst at the edge)', async () => {
    const clock = fakeClock(0);
    const store = new MemoryRateLimitStore({ now: clock.now });
    const rule = window(10, 1000);
    let allowed = 0;
    // One request every 10 ms for 10 s: at most 10 in any 1000 ms.
    const times: number[] = [];
    for (let t = 0; t < 10_000; t += 10) {
      clock.t = t;
      if ((await store.take('k', rule)).allowed) {
        allowed++;
        times.push(t);
      }
    }
    expect(allowed).toBe(100);
    for (let i = 10; i < times.length; i++) expect(times[i] - times[i - 10]).toBeGreaterThanOrEqual(1000);
  });
});

describe('MemoryRateLimitStore, token bucket', () => {
  it('allows a burst of limit, then refills one token every windowMs / limit, exactly', async () => {
    const clock = fakeClock();
    const store = new MemoryRateLimitStore({ now: clock.now });
    const rule = bucket(5, 60_000); // a token every 12 s
    for (let i = 4; i >= 0; i--) expect(await store.take('k', rule)).toEqual({ allowed: true, remaining: i, retryAfterMs: 0 });
    expect(await store.take('k', rule)).toEqual({ allowed: false, remaining: 0, retryAfterMs: 12_000 });
    clock.t += 11_999;
    expect(await store.take('k', rule)).toEqual({ allowed: false, remaining: 0, retryAfterMs: 1 });
    clock.t += 1;
    expect(await store.take('k', rule)).toEqual({ allowed: true, remaining: 0, retryAfterMs: 0 });
    clock.t += 30_000; // two and a half tokens
    expect(await store.take('k', rule)).toEqual({ allowed: true, remaining: 1, retryAfterMs: 0 });
    expect(await store.take('k', rule)).toEqual({ allowed: true, remaining: 0, retryAfterMs: 0 });
    expect(await store.take('k', rule)).toEqual({ allowed: false, remaining: 0, retryAfterMs: 6000 });
  });

  it('never holds more than limit tokens however long it is idle', async () => {
    const clock = fakeClock();
    const store = new MemoryRateLimitStore({ now: clock.now });
    const rule = bucket(3, 1000);
    expect((await store.take('k', rule)).remaining).toBe(2);
    clock.t += 1_000_000;
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push((await store.take('k', rule)).allowed);
    expect(answers).toEqual([true, true, true, false]);
  });

  it('refills nothing when the clock steps back', async () => {
    const clock = fakeClock();
    const store = new MemoryRateLimitStore({ now: clock.now });
    const rule = bucket(1, 1000);
    expect((await store.take('k', rule)).allowed).toBe(true);
    clock.t -= 5000;
    expect(await store.take('k', rule)).toEqual({ allowed: false, remaining: 0, retryAfterMs: 1000 });
  });
});

describe('MemoryRateLimitStore, memory', () => {
  it('sweeps keys idle for their window, and they start afresh', async () => {
    const clock = fakeClock();
    const store = new MemoryRateLimitStore({ now: clock.now, sweepIntervalMs: 1000 });
    for (let i = 0; i < 50; i++) await store.take(`short${i}`, window(1, 500));
    await store.take('long', bucket(1, 60_000));
    expect(store.size).toBe(51);
    clock.t += 1000;
    await store.take('other', window(1, 500));
    // The short windows are over; the bucket is not yet full again, so it stays.
    expect(store.size).toBe(2);
    expect((await store.take('long', bucket(1, 60_000))).allowed).toBe(false);
    expect((await store.take('short0', window(1, 500))).allowed).toBe(true);
  });

  it('keeps at most maxKeys, dropping the one used least recently', async () => {
    const clock = fakeClock();
    const store = new MemoryRateLimitStore({ now: clock.now, maxKeys: 3 });
    const rule = window(1, 60_000);
    for (const key of ['a', 'b', 'c']) await store.take(key, rule);
    expect((await store.take('a', rule)).allowed).toBe(false); // a is now the most recent
    await store.take('d', rule); // drops b
    expect(store.size).toBe(3);
    expect((await store.take('b', rule)).allowed).toBe(true); // b was forgotten; c is dropped for it
    expect((await store.take('a', rule)).allowed).toBe(false);
    expect((await store.take('d', rule)).allowed).toBe(false);
    expect((await store.take('c', rule)).allowed).toBe(true);
  });

  it('answers at once, no promise, and a key used again and again stays the most recent', () => {
    const clock = fakeClock();
    const store = new MemoryRateLimitStore({ now: clock.now, maxKeys: 2 });
    const rule = window(3, 60_000);
    const first = store.take('a', rule);
    expect(first).not.toBeInstanceOf(Promise);
    expect(first).toEqual({ allowed: true, remaining: 2, retryAfterMs: 0 });
    store.take('b', rule);
    store.take('a', rule);
    store.take('a', rule);
    store.take('c', rule); // drops b, used least recently
    expect(store.take('b', rule)).toEqual({ allowed: true, remaining: 2, retryAfterMs: 0 }); // afresh; drops a
    expect(store.take('c', rule)).toEqual({ allowed: true, remaining: 1, retryAfterMs: 0 });
    expect(store.take('a', rule)).toEqual({ allowed: true, remaining: 2, retryAfterMs: 0 }); // a was dropped
    // The same key under the other algorithm counts apart, then the first again.
    expect(store.take('a', bucket(1, 60_000)).allowed).toBe(true);
    expect(store.take('a', rule)).toEqual({ allowed: true, remaining: 1, retryAfterMs: 0 });
  });

  it('starts a key afresh when its window changes, and keeps the two algorithms apart', async () => {
    const store = new MemoryRateLimitStore({ now: () => 0 });
    expect((await store.take('k', window(1, 1000))).allowed).toBe(true);
    expect((await store.take('k', window(1, 1000))).allowed).toBe(false);
    expect((await store.take('k', bucket(1, 1000))).allowed).toBe(true);
    expect((await store.take('k', window(1, 1000))).allowed).toBe(false);
    expect((await store.take('k', window(1, 2000))).allowed).toBe(true);
    // A window's limit may change and its log stays: one counted, a second allowed, a third refused.
    expect(await store.take('k', window(2, 2000))).toEqual({ allowed: true, remaining: 0, retryAfterMs: 0 });
    expect((await store.take('k', window(2, 2000))).allowed).toBe(false);
  });

  it('checks its options', () => {
    expect(() => new MemoryRateLimitStore({ maxKeys: 0 })).toThrow('MemoryRateLimitStore: maxKeys must be a positive integer, got 0');
    expect(() => new MemoryRateLimitStore({ now: 5 as never })).toThrow('MemoryRateLimitStore: now must be a function');
  });
});
