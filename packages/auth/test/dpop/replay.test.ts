/** The in-memory replay cache: a proof id passes once until it expires, and the cache stays bounded without forgetting a replay. */
import { MemoryDpopReplayCache } from '@typemcp/auth';

it('accepts an id once until it expires, then again', () => {
  let now = 1_000_000;
  const cache = new MemoryDpopReplayCache({ now: () => now });
  expect(cache.add('a', now + 60_000)).toBe(true);
  expect(cache.add('a', now + 60_000)).toBe(false);
  now += 60_001;
  expect(cache.add('a', now + 60_000)).toBe(true);
  expect(cache.size).toBe(1);
});

it('stays within maxEntries, and refuses every proof expiring no later than one it had to forget', () => {
  let now = 1_000_000;
  const cache = new MemoryDpopReplayCache({ maxEntries: 3, now: () => now });
  for (const [id, at] of [['a', 10], ['b', 20], ['c', 30]] as const) expect(cache.add(id, now + at * 1000)).toBe(true);
  // Full: d pushes a out; a, replayed, is refused though it is no longer listed.
  expect(cache.add('d', now + 40_000)).toBe(true);
  expect(cache.size).toBe(3);
  expect(cache.add('a', now + 10_000)).toBe(false);
  expect(cache.add('e', now + 5_000)).toBe(false);
  expect(cache.add('f', now + 50_000)).toBe(true);
  // Expired entries go first, without raising the floor.
  now += 45_000;
  expect(cache.add('g', now + 60_000)).toBe(true);
  expect(cache.size).toBe(2);
});
