/**
 * What every store of the guards must do (packages/guards/src/rateLimit/RateLimitStore.ts and
 * cache/ResultCacheStore.ts): one set of tests each, run against every implementation, in
 * memory and on Redis. Time is real (a Redis store reads Redis's clock), so windows and
 * lifetimes are short; each test uses keys and groups of its own, so a store may keep what
 * earlier tests left.
 */
import { randomUUID } from 'node:crypto';
import type { RateLimitStore, RateRule, ResultCacheStore } from '@typemcp/guards';

/** How the stores a contract is run on relate. */
export interface StoreContractOptions {
  /** Stores made by `makeStore` share what they hold (replicas on one Redis): tests with two of them run too. */
  shared?: boolean;
}

/** How many takes at once in the atomicity tests. */
const CONCURRENT = 60;

/** Slack for the clocks of the store and the test (ms rounding, the store's own clock). */
const SLACK_MS = 15;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const unique = (name: string) => `${name}-${randomUUID()}`;

/** Runs the RateLimitStore contract on the stores `makeStore` gives (one or two a test). */
export function describeRateLimitStore(name: string, makeStore: () => RateLimitStore, options: StoreContractOptions = {}): void {
  describe(`${name} (RateLimitStore contract)`, () => {
    describe('sliding window', () => {
      const rule: RateRule = { limit: 5, windowMs: 1_000, algorithm: 'sliding-window' };

      it('allows exactly limit requests in a window, counting down remaining, and refuses the next with the exact retryAfterMs', async () => {
        const store = makeStore();
        const key = unique('sw');
        const firstStarted = performance.now();
        const first = await store.take(key, rule);
        const firstDone = performance.now();
        expect(first).toEqual({ allowed: true, remaining: 4, retryAfterMs: 0 });
        const rest = [];
        for (let i = 0; i < 4; i++) rest.push(await store.take(key, rule));
        expect(rest.map((d) => [d.allowed, d.remaining, d.retryAfterMs])).toEqual([
          [true, 3, 0],
          [true, 2, 0],
          [true, 1, 0],
          [true, 0, 0],
        ]);
        const refusedStarted = performance.now();
        const refused = await store.take(key, rule);
        const refusedDone = performance.now();
        expect(refused).toMatchObject({ allowed: false, remaining: 0 });
        // The oldest request leaves the window windowMs after it was counted.
        expect(refused.retryAfterMs).toBeGreaterThan(0);
        expect(refused.retryAfterMs).toBeLessThanOrEqual(rule.windowMs - (refusedStarted - firstDone) + SLACK_MS);
        expect(refused.retryAfterMs).toBeGreaterThanOrEqual(rule.windowMs - (refusedDone - firstStarted) - SLACK_MS);
        // Refused requests do not count: still refused just before, allowed just after.
        await sleep(Math.max(0, refused.retryAfterMs - 150));
        expect((await store.take(key, rule)).allowed).toBe(false);
        await sleep(150 + SLACK_MS * 2);
        expect(await store.take(key, rule)).toMatchObject({ allowed: true, retryAfterMs: 0 });
      });

      it('slides: requests leave the window one by one, windowMs after each was allowed', async () => {
        const store = makeStore();
        const key = unique('slide');
        const slide: RateRule = { limit: 2, windowMs: 600, algorithm: 'sliding-window' };
        expect((await store.take(key, slide)).allowed).toBe(true);
        await sleep(300);
        expect((await store.take(key, slide)).allowed).toBe(true);
        const refused = await store.take(key, slide);
        expect(refused.allowed).toBe(false);
        expect(refused.retryAfterMs).toBeLessThanOrEqual(300 + SLACK_MS);
        // The first leaves: one place, not two.
        await sleep(refused.retryAfterMs + SLACK_MS * 2);
        expect(await store.take(key, slide)).toMatchObject({ allowed: true, remaining: 0 });
        expect((await store.take(key, slide)).allowed).toBe(false);
      });

      it('counts each key on its own', async () => {
        const store = makeStore();
        const [a, b] = [unique('a'), unique('b')];
        const one: RateRule = { limit: 1, windowMs: 10_000, algorithm: 'sliding-window' };
        expect((await store.take(a, one)).allowed).toBe(true);
        expect((await store.take(a, one)).allowed).toBe(false);
        expect(await store.take(b, one)).toEqual({ allowed: true, remaining: 0, retryAfterMs: 0 });
      });

      it(`allows exactly limit of ${CONCURRENT} takes at once`, async () => {
        const stores = options.shared ? [makeStore(), makeStore()] : [makeStore()];
        const key = unique('race');
        const limited: RateRule = { limit: 10, windowMs: 30_000, algorithm: 'sliding-window' };
        const decisions = await Promise.all(Array.from({ length: CONCURRENT }, (_, i) => stores[i % stores.length].take(key, limited)));
        expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
        expect(decisions.filter((d) => d.allowed).map((d) => d.remaining).sort((x, y) => x - y)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
        expect(decisions.filter((d) => !d.allowed).every((d) => d.remaining === 0 && d.retryAfterMs > 0 && d.retryAfterMs <= 30_000)).toBe(true);
      });
    });

    describe('token bucket', () => {
      const rule: RateRule = { limit: 4, windowMs: 800, algorithm: 'token-bucket' };

      it('starts full: allows limit requests at once, then refuses until the next token, windowMs / limit later', async () => {
        const store = makeStore();
        const key = unique('tb');
        expect(await store.take(key, rule)).toEqual({ allowed: true, remaining: 3, retryAfterMs: 0 });
        for (let i = 0; i < 3; i++) expect((await store.take(key, rule)).allowed).toBe(true);
        const refused = await store.take(key, rule);
        expect(refused).toMatchObject({ allowed: false, remaining: 0 });
        expect(refused.retryAfterMs).toBeGreaterThan(0);
        expect(refused.retryAfterMs).toBeLessThanOrEqual(rule.windowMs / rule.limit);
        // One token comes back: one request, not two.
        await sleep(refused.retryAfterMs + SLACK_MS * 2);
        expect(await store.take(key, rule)).toMatchObject({ allowed: true, remaining: 0 });
        const again = await store.take(key, rule);
        expect(again.allowed).toBe(false);
        expect(again.retryAfterMs).toBeGreaterThan(0);
        expect(again.retryAfterMs).toBeLessThanOrEqual(rule.windowMs / rule.limit);
      });

      it('refills to limit tokens in one window, no more', async () => {
        const store = makeStore();
        const key = unique('refill');
        for (let i = 0; i < 4; i++) expect((await store.take(key, rule)).allowed).toBe(true);
        expect((await store.take(key, rule)).allowed).toBe(false);
        await sleep(rule.windowMs * 2);
        const taken = [];
        for (let i = 0; i < 5; i++) taken.push(await store.take(key, rule));
        expect(taken.map((d) => d.allowed)).toEqual([true, true, true, true, false]);
        expect(taken[0].remaining).toBe(3);
      });

      it(`allows exactly limit of ${CONCURRENT} takes at once`, async () => {
        const stores = options.shared ? [makeStore(), makeStore()] : [makeStore()];
        const key = unique('bucket-race');
        // A token a minute: none comes back while the takes run.
        const limited: RateRule = { limit: 10, windowMs: 600_000, algorithm: 'token-bucket' };
        const decisions = await Promise.all(Array.from({ length: CONCURRENT }, (_, i) => stores[i % stores.length].take(key, limited)));
        expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
        expect(decisions.filter((d) => !d.allowed).every((d) => d.remaining === 0 && d.retryAfterMs > 0 && d.retryAfterMs <= 60_000)).toBe(true);
      });
    });

    it('keeps the two algorithms of one key apart', async () => {
      const store = makeStore();
      const key = unique('both');
      expect((await store.take(key, { limit: 1, windowMs: 10_000, algorithm: 'sliding-window' })).allowed).toBe(true);
      expect((await store.take(key, { limit: 1, windowMs: 10_000, algorithm: 'token-bucket' })).allowed).toBe(true);
    });

    if (options.shared) {
      it('shares the counts between stores (replicas): limit in all, then refused by each', async () => {
        const [a, b] = [makeStore(), makeStore()];
        const key = unique('shared');
        const limited: RateRule = { limit: 3, windowMs: 10_000, algorithm: 'sliding-window' };
        expect((await a.take(key, limited)).allowed).toBe(true);
        expect((await b.take(key, limited)).allowed).toBe(true);
        expect(await a.take(key, limited)).toMatchObject({ allowed: true, remaining: 0 });
        expect((await b.take(key, limited)).allowed).toBe(false);
        expect((await a.take(key, limited)).allowed).toBe(false);
      });
    }
  });
}

/** Runs the ResultCacheStore contract on the stores `makeStore` gives (one or two a test). */
export function describeResultCacheStore(name: string, makeStore: () => ResultCacheStore, options: StoreContractOptions = {}): void {
  describe(`${name} (ResultCacheStore contract)`, () => {
    it('returns nothing for what was never set', async () => {
      const store = makeStore();
      expect(await store.get(unique('group'), 'key')).toBeUndefined();
    });

    it('gives a value back unchanged (JSON, Unicode beyond the BMP, control characters, empty, large) with the ms it has left', async () => {
      const store = makeStore();
      const group = unique('values');
      const values = {
        json: JSON.stringify({ content: [{ type: 'text', text: 'héllo "wörld"\n' }], structuredContent: { n: 1.5, list: [null, true] } }),
        unicode: 'emoji 🎉 汉字 \u0000 \t\r\n \\ end',
        empty: '',
        large: 'x'.repeat(200_000) + '✓',
      };
      for (const [key, value] of Object.entries(values)) await store.set(group, key, value, 10_000);
      for (const [key, value] of Object.entries(values)) {
        const found = await store.get(group, key);
        expect(found?.value).toBe(value);
        expect(found!.ttlMs).toBeGreaterThan(8_000);
        expect(found!.ttlMs).toBeLessThanOrEqual(10_000);
      }
    });

    it('replaces an entry set again, with its new lifetime', async () => {
      const store = makeStore();
      const group = unique('replace');
      await store.set(group, 'k', 'first', 10_000);
      await store.set(group, 'k', 'second', 60_000);
      const found = await store.get(group, 'k');
      expect(found?.value).toBe('second');
      expect(found!.ttlMs).toBeGreaterThan(50_000);
    });

    it('forgets an entry once its ttlMs has passed, and its ttlMs counts down', async () => {
      const store = makeStore();
      const group = unique('ttl');
      await store.set(group, 'short', 'gone soon', 300);
      await store.set(group, 'long', 'stays', 10_000);
      const early = await store.get(group, 'short');
      expect(early?.value).toBe('gone soon');
      await sleep(150);
      const later = await store.get(group, 'short');
      expect(later?.value).toBe('gone soon');
      expect(later!.ttlMs).toBeLessThan(early!.ttlMs);
      expect(later!.ttlMs).toBeLessThanOrEqual(300 - 150 + SLACK_MS);
      await sleep(later!.ttlMs + 50);
      expect(await store.get(group, 'short')).toBeUndefined();
      expect((await store.get(group, 'long'))?.value).toBe('stays');
    });

    it('invalidate drops every entry of its group and nothing of another; later sets are kept', async () => {
      const store = makeStore();
      const [group, other] = [unique('tool:search'), unique('tool:other')];
      await store.set(group, 'a', 'A', 10_000);
      await store.set(group, 'b', 'B', 10_000);
      await store.set(other, 'a', 'other A', 10_000);
      await store.invalidate(group);
      expect(await store.get(group, 'a')).toBeUndefined();
      expect(await store.get(group, 'b')).toBeUndefined();
      expect((await store.get(other, 'a'))?.value).toBe('other A');
      await store.set(group, 'a', 'A again', 10_000);
      expect((await store.get(group, 'a'))?.value).toBe('A again');
      // Invalidating a group that holds nothing is harmless.
      await store.invalidate(unique('never-set'));
      expect((await store.get(group, 'a'))?.value).toBe('A again');
    });

    it('keeps groups and keys apart whatever characters they hold (braces, colons, percent signs)', async () => {
      const store = makeStore();
      const base = unique('res');
      const pairs: Array<[string, string]> = [
        [`${base}`, '0:x'],
        [`${base}:0`, 'x'],
        [`${base}}`, 'x'],
        [`${base}`, '}x'],
        [`${base}%7D`, 'x'],
        [`notes://{id}${base}`, 'id=1'],
        [`notes://{id}${base}`, 'id=2'],
      ];
      for (const [i, [group, key]] of pairs.entries()) await store.set(group, key, `value ${i}`, 10_000);
      for (const [i, [group, key]] of pairs.entries()) expect((await store.get(group, key))?.value).toBe(`value ${i}`);
      await store.invalidate(`${base}}`);
      expect(await store.get(`${base}}`, 'x')).toBeUndefined();
      expect((await store.get(`${base}`, '}x'))?.value).toBe('value 3');
    });

    if (options.shared) {
      it('shares entries and invalidations between stores (replicas)', async () => {
        const [a, b] = [makeStore(), makeStore()];
        const group = unique('shared');
        await a.set(group, 'k', 'from a', 10_000);
        expect((await b.get(group, 'k'))?.value).toBe('from a');
        await b.invalidate(group);
        expect(await a.get(group, 'k')).toBeUndefined();
      });
    }
  });
}
