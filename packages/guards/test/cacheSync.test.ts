/**
 * The result cache on the hot path: with a store that answers at once, a synchronous item's
 * request stays synchronous (hit and miss), an asynchronous store or item makes it a promise,
 * keys reach the store whole, and a cancelled run is not kept.
 */
import 'reflect-metadata';
import { IsString } from 'class-validator';
import { Context, McpServer, metadataStore, Tool } from '@typemcp/core';
import type { Plugin } from '@typemcp/core';
import { createTestClient } from '@typemcp/testing';
import type { TestClient } from '@typemcp/testing';
import { CacheResult, MemoryResultCache, ResultCache } from '@typemcp/guards';
import type { ResultCacheStore } from '@typemcp/guards';
import { canonicalJson } from '../src/cache/keys';

let calls: Record<string, number>;
const ran = (name: string) => (calls[name] = (calls[name] ?? 0) + 1);
let gate: Promise<void>;
let started: () => void;

function declareProviders() {
  class TextInput {
    @IsString() text!: string;
  }

  class Items {
    @Tool({ description: 'Echoes, synchronously' })
    @CacheResult({ ttlMs: 10_000 })
    echo(input: TextInput): string {
      return `${input.text} #${ran('echo')}`;
    }

    @Tool({ description: 'Echoes after the gate' })
    @CacheResult({ ttlMs: 10_000 })
    async later(input: TextInput, ctx: Context): Promise<string> {
      const n = ran('later');
      started();
      await gate;
      return `${input.text} #${n}${ctx.signal.aborted ? ' (cut short)' : ''}`;
    }
  }
  return { Items };
}

let Items: ReturnType<typeof declareProviders>['Items'];
const cleanups: Array<() => Promise<unknown> | void> = [];

beforeEach(() => {
  metadataStore.clear();
  ({ Items } = declareProviders());
  calls = {};
  gate = Promise.resolve();
  started = () => undefined;
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Added before the cache (outermost): how each item request came back through it, `sync`, `async` (a promise) or `threw` at once. */
function probe(seen: string[]): Plugin {
  return {
    name: 'probe',
    register: (host) =>
      host.intercept((ctx, next) => {
        if (ctx.method === 'initialize' || ctx.method.startsWith('notifications/')) return next();
        let result: unknown;
        try {
          result = next();
        } catch (error) {
          seen.push('threw');
          throw error;
        }
        seen.push(result instanceof Promise ? 'async' : 'sync');
        return result;
      }),
  };
}

async function connect(store: ResultCacheStore, inner?: Plugin): Promise<{ client: TestClient; seen: string[]; cache: ResultCache }> {
  const seen: string[] = [];
  const cache = new ResultCache({ store });
  const server = new McpServer({ name: 'cached', version: '1.0.0', providers: [Items], onError: () => undefined }).plugin(probe(seen)).plugin(cache);
  if (inner !== undefined) server.plugin(inner);
  cleanups.push(() => server.close());
  const client = await createTestClient(server);
  cleanups.push(() => client.close());
  seen.length = 0;
  return { client, seen, cache };
}

const textOf = (result: { content?: unknown }) => (result.content as Array<{ text: string }>)[0].text;

/** A store that records what it is asked and answers as `memory` does, at once or (`async`) with promises. */
function recording(memory: MemoryResultCache, async: boolean) {
  const asked: Array<[string, string, string]> = [];
  const answer = <T>(value: T): T | Promise<T> => (async ? Promise.resolve(value) : value);
  const store: ResultCacheStore = {
    get: (group, key) => (asked.push(['get', group, key]), answer(memory.get(group, key))),
    set: (group, key, value, ttlMs) => (asked.push(['set', group, key]), answer(memory.set(group, key, value, ttlMs))),
    invalidate: (group) => answer(memory.invalidate(group)),
  };
  return { store, asked };
}

describe('ResultCache with a store that answers at once', () => {
  it('keeps a synchronous tool synchronous, on a miss and on a hit, and serves the hit', async () => {
    const { client, seen } = await connect(new MemoryResultCache());
    expect(textOf(await client.callTool('echo', { text: 'a' }))).toBe('a #1');
    expect(textOf(await client.callTool('echo', { text: 'a' }))).toBe('a #1');
    expect(textOf(await client.callTool('echo', { text: 'b' }))).toBe('b #2');
    expect(seen).toEqual(['sync', 'sync', 'sync']);
    expect(calls.echo).toBe(2);
  });

  it('answers with a promise when the store does, and caches all the same', async () => {
    const { store, asked } = recording(new MemoryResultCache(), true);
    const { client, seen } = await connect(store);
    expect(textOf(await client.callTool('echo', { text: 'a' }))).toBe('a #1');
    expect(textOf(await client.callTool('echo', { text: 'a' }))).toBe('a #1');
    expect(seen).toEqual(['async', 'async']);
    expect(asked.map(([method]) => method)).toEqual(['get', 'set', 'get']);
  });

  it('answers with a promise when the item does (a flight concurrent misses join)', async () => {
    const { client, seen } = await connect(new MemoryResultCache());
    let open!: () => void;
    gate = new Promise((resolve) => (open = resolve));
    const first = client.callTool('later', { text: 'x' });
    const second = client.callTool('later', { text: 'x' });
    await new Promise((resolve) => setTimeout(resolve, 30));
    open();
    expect((await Promise.all([first, second])).map(textOf)).toEqual(['x #1', 'x #1']);
    expect(seen).toEqual(['async', 'async']);
    expect(calls.later).toBe(1);
  });

  it('lets what the item throws at once through at once, and keeps nothing', async () => {
    // Inside the cache: fails the first call at once, as a synchronous item or interceptor may.
    let failures = 1;
    const thrower: Plugin = {
      name: 'thrower',
      register: (host) =>
        host.intercept((ctx, next) => {
          if (ctx.method === 'tools/call' && failures > 0) {
            failures--;
            throw new Error('failed at once');
          }
          return next();
        }),
    };
    const { client, seen } = await connect(new MemoryResultCache(), thrower);
    await expect(client.callTool('echo', { text: 'a' })).rejects.toThrow();
    expect(textOf(await client.callTool('echo', { text: 'a' }))).toBe('a #1');
    expect(textOf(await client.callTool('echo', { text: 'a' }))).toBe('a #1');
    expect(seen).toEqual(['threw', 'sync', 'sync']);
  });

  it('gives the store the key whole: caller, grant and canonical arguments, however long (no hashing)', async () => {
    const { store, asked } = recording(new MemoryResultCache(), false);
    const { client } = await connect(store);
    const long = 'y'.repeat(300);
    await client.callTool('echo', { text: long });
    expect(asked).toEqual([
      ['get', 'tool:echo', `local\nanonymous\n{"text":"${long}"}`],
      ['set', 'tool:echo', `local\nanonymous\n{"text":"${long}"}`],
    ]);
  });

  it('does not keep the result of a run the client cancelled', async () => {
    const { client } = await connect(new MemoryResultCache());
    let open!: () => void;
    gate = new Promise((resolve) => (open = resolve));
    const running = new Promise<void>((resolve) => (started = resolve));
    const controller = new AbortController();
    const cancelled = client.request('tools/call', { name: 'later', arguments: { text: 'z' } }, { signal: controller.signal });
    await running;
    controller.abort('changed my mind');
    await expect(cancelled).rejects.toThrow('cancelled');
    // The server hears the cancellation before the item ends.
    await new Promise((resolve) => setTimeout(resolve, 30));
    open();
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(textOf(await client.callTool('later', { text: 'z' }))).toBe('z #2');
    expect(textOf(await client.callTool('later', { text: 'z' }))).toBe('z #2');
  });
});

describe('canonicalJson', () => {
  /** The plain definition: every object's keys sorted, recursively; -0 and the infinities as themselves (JSON writes 0 and null). */
  const reference = (value: unknown): string => {
    if (typeof value === 'number' && (Object.is(value, -0) || !Number.isFinite(value))) return Object.is(value, -0) ? '-0' : String(value);
    if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'null';
    if (Array.isArray(value)) return `[${value.map(reference).join(',')}]`;
    const record = value as Record<string, unknown>;
    const parts = Object.keys(record)
      .sort()
      .filter((key) => record[key] !== undefined && typeof record[key] !== 'function')
      .map((key) => `${JSON.stringify(key)}:${reference(record[key])}`);
    return `{${parts.join(',')}}`;
  };

  it('writes the same for the same arguments in any key order, sorted or not, nested or not', () => {
    const values: unknown[] = [
      { a: 1, b: [1, { d: 2, c: 3 }], e: { g: null, f: 'x' } },
      { b: [1, { c: 3, d: 2 }], e: { f: 'x', g: null }, a: 1 },
      { '10': 'ten', '9': 'nine', a: true },
      { a: undefined, b: 2, f: () => 1, arr: [undefined, () => 1] },
      Object.assign(Object.create(null) as object, { z: 1, a: 2 }),
      [{ b: 1, a: 2 }, 'é', 1.5, -0, [[]]],
      { a: [0, Infinity, -Infinity], b: null },
      {},
      [],
    ];
    for (const value of values) expect(canonicalJson(value)).toBe(reference(value));
    expect(canonicalJson({ b: 1, a: { d: 1, c: 2 } })).toBe('{"a":{"c":2,"d":1},"b":1}');
    expect(canonicalJson({ a: 1, b: 2 })).toBe(canonicalJson({ b: 2, a: 1 }));
  });
});
