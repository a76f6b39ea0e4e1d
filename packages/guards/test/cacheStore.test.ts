import { MemoryResultCache } from '@typemcp/guards';
import { describeResultCacheStore } from '../../../test-support/guardStoreContracts';

// The contract every store meets, on real time (the Redis store runs it too).
describeResultCacheStore('MemoryResultCache', () => new MemoryResultCache());

/** A clock the test moves. */
function fakeClock(start = 1_000_000) {
  const clock = { t: start, now: () => clock.t };
  return clock;
}

describe('MemoryResultCache', () => {
  it('serves an entry until exactly its ttlMs has passed, with the ms it has left', async () => {
    const clock = fakeClock();
    const store = new MemoryResultCache({ now: clock.now });
    await store.set('tool:t', 'k', 'v', 1_000);
    clock.t += 400;
    expect(await store.get('tool:t', 'k')).toEqual({ value: 'v', ttlMs: 600 });
    clock.t += 599;
    expect(await store.get('tool:t', 'k')).toEqual({ value: 'v', ttlMs: 1 });
    clock.t += 1;
    expect(await store.get('tool:t', 'k')).toBeUndefined();
    // An expired entry read is dropped.
    expect(store.size).toBe(0);
  });

  it('keeps at most maxEntries, dropping the least recently used (a read counts as a use)', async () => {
    const store = new MemoryResultCache({ maxEntries: 3 });
    for (const key of ['a', 'b', 'c']) await store.set('g', key, key.toUpperCase(), 60_000);
    expect(await store.get('g', 'a')).toMatchObject({ value: 'A' });
    await store.set('g', 'd', 'D', 60_000);
    expect(store.size).toBe(3);
    expect(await store.get('g', 'b')).toBeUndefined();
    expect((await Promise.all(['a', 'c', 'd'].map((key) => store.get('g', key)))).map((found) => found?.value)).toEqual(['A', 'C', 'D']);
  });

  it('keeps at most maxBytes (two bytes per character of group, key and value), and never an entry larger than that', async () => {
    // Each entry: 2 × (1 + 1 + 48) = 100 bytes.
    const store = new MemoryResultCache({ maxBytes: 250 });
    const value = 'x'.repeat(48);
    await store.set('g', 'a', value, 60_000);
    await store.set('g', 'b', value, 60_000);
    expect(store.totalBytes).toBe(200);
    await store.set('g', 'c', value, 60_000);
    expect(store.totalBytes).toBe(200);
    expect(await store.get('g', 'a')).toBeUndefined();
    expect(await store.get('g', 'c')).toMatchObject({ value });
    // Too large for the whole cache: not kept, and what was there stays.
    await store.set('g', 'huge', 'y'.repeat(200), 60_000);
    expect(await store.get('g', 'huge')).toBeUndefined();
    expect(store.size).toBe(2);
    // Replacing an entry counts its new size only.
    await store.set('g', 'b', 'short', 60_000);
    expect(store.totalBytes).toBe(100 + 2 * (1 + 1 + 5));
  });

  it('invalidates a group in O(1): its entries are hidden at once and dropped as they are met, and its record goes with the last', async () => {
    const store = new MemoryResultCache();
    for (let i = 0; i < 100; i++) await store.set('tool:a', `k${i}`, 'v', 60_000);
    await store.set('tool:b', 'k0', 'w', 60_000);
    await store.invalidate('tool:a');
    // Nothing was walked: the entries are still there, hidden.
    expect(store.size).toBe(101);
    expect(await store.get('tool:a', 'k0')).toBeUndefined();
    expect(store.size).toBe(100);
    expect(await store.get('tool:b', 'k0')).toMatchObject({ value: 'w' });
    // Set after the invalidation: seen.
    await store.set('tool:a', 'k1', 'new', 60_000);
    expect(await store.get('tool:a', 'k1')).toMatchObject({ value: 'new' });
    expect(await store.get('tool:a', 'k2')).toBeUndefined();
  });

  it('keeps nothing for a ttlMs of 0 or less', async () => {
    const store = new MemoryResultCache();
    await store.set('g', 'k', 'v', 0);
    await store.set('g', 'n', 'v', -5);
    expect(store.size).toBe(0);
  });

  it('refuses bounds that are not positive integers, naming the option', () => {
    expect(() => new MemoryResultCache({ maxEntries: 0 })).toThrow('MemoryResultCache: maxEntries must be a positive integer, not 0');
    expect(() => new MemoryResultCache({ maxBytes: 1.5 })).toThrow('MemoryResultCache: maxBytes must be a positive integer, not 1.5');
    expect(() => new MemoryResultCache({ now: 5 as never })).toThrow(TypeError);
  });
});
