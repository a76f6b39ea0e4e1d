import { DefinitionError, metadataStore } from '@typemcp/core';
import type { Context, Interceptor, InvocationTarget, MiddlewareContext, Plugin, PluginHost, Principal, ServedItem } from '@typemcp/core';
import { principalCaller } from '../callers';
import { declareGuard, itemSettings } from '../items';
import type { PerItem } from '../items';
import { canonicalJson } from './keys';
import { MemoryResultCache } from './MemoryResultCache';
import type { ResultCacheStore } from './ResultCacheStore';

/**
 * Who may be served a cached result: the caller who made it only (`private`, the default), or
 * every caller (`public`: results that hold nothing of the caller's).
 */
export type CacheScope = 'private' | 'public';

/** How one item's results are cached. */
export interface CacheSettings {
  /** How long a result is served from the cache, in ms (a positive integer). */
  readonly ttlMs: number;
  /** `private` (default): per caller; `public`: shared by all callers. */
  readonly scope?: CacheScope;
}

/**
 * Options of a `ResultCache`: where results are kept, and which items are cached (by name here,
 * or by `@CacheResult` on their method; an item named in neither is never cached).
 */
export interface ResultCacheOptions extends PerItem<CacheSettings> {
  /** Default: a `MemoryResultCache` with its default bounds (1,000 entries, 32 MiB). */
  readonly store?: ResultCacheStore;
}

/** What `@CacheResult` records, read by the plugin. */
const CACHE_GUARD = 'cache';

const KNOWN_OPTIONS: ReadonlySet<string> = new Set(['store', 'tools', 'resources', 'prompts']);

/** How often a store that keeps failing is reported again, in ms. */
const REPORT_AGAIN_MS = 60_000;

/** A miss being computed on this replica (or being stored by an asynchronous store), which concurrent misses of its key wait for. */
interface Flight {
  /** The invalidation count when it started: a flight older than an invalidation is not joined. */
  readonly epoch: number;
  /** The serialised result, or undefined when it may not be shared (failed, not cacheable, invalidated meanwhile). */
  readonly value: Promise<string | undefined>;
}

/** What the plugin knows of one item, made at its first request and kept per target: nothing of it is recomputed per call. */
interface ItemState {
  readonly kind: ServedItem['kind'];
  /** The item's name as requests give it (a resource's uri). */
  readonly name: string;
  readonly settings: CacheSettings;
  /** Where its entries are: `tool:<name>`, `prompt:<name>`, `resource:<uri>`. */
  readonly group: string;
  /** Behind a `@Guard`: never cached (a hit would skip the guard). */
  readonly guarded: boolean;
  readonly scope: CacheScope;
}

/** An entry as a store gives it back. */
type StoreEntry = { value: string; ttlMs: number } | undefined;

/** What an anonymous caller's keys start with: `public` entries, and private ones of the one local client (stdio, in memory). */
const ANONYMOUS_PUBLIC = 'public\nanonymous\n';
const ANONYMOUS_LOCAL = 'local\nanonymous\n';

/**
 * Caches results of the tools, resources and prompts an author opts in (`@CacheResult` or the
 * options): the first call runs the item, the calls with the same arguments within `ttlMs` get
 * its result. Add it with `server.plugin(cache)`; it is its own plugin object so the author can
 * invalidate (`invalidateTool`, `invalidateResource`, `invalidatePrompt`). One instance per
 * server; replicas share results through a shared store (`RedisResultCache`).
 *
 * It is an interceptor: with a store that answers at once (`MemoryResultCache`) a synchronous
 * item stays synchronous, hit or miss, and a call costs little more than without the cache.
 */
export class ResultCache implements Plugin<void> {
  readonly name = 'guards:cache';
  private readonly store: ResultCacheStore;
  private readonly perItem: PerItem<CacheSettings>;
  private readonly flights = new Map<string, Flight>();
  private readonly items = new WeakMap<InvocationTarget, ItemState>();
  /** Invalidations so far: a miss that saw one while it ran is not stored. */
  private epoch = 0;
  private host: PluginHost | undefined;
  private failing = false;
  private reportedAt = -Infinity;

  constructor(options: ResultCacheOptions = {}) {
    if (typeof options !== 'object' || options === null) throw new TypeError('guards:cache: options must be an object: new ResultCache({ store, tools, resources, prompts })');
    for (const key of Object.keys(options)) {
      if (!KNOWN_OPTIONS.has(key)) throw new TypeError(`guards:cache: unknown option ${JSON.stringify(key)} (options are store, tools, resources, prompts)`);
    }
    const { store } = options;
    if (store !== undefined && (typeof store !== 'object' || store === null || !(['get', 'set', 'invalidate'] as const).every((m) => typeof store[m] === 'function'))) {
      throw new TypeError('guards:cache: store must be a ResultCacheStore: an object with get, set and invalidate');
    }
    for (const kind of ['tools', 'resources', 'prompts'] as const) {
      const byName = options[kind];
      if (byName === undefined) continue;
      if (typeof byName !== 'object' || byName === null || Array.isArray(byName)) throw new TypeError(`guards:cache: ${kind} must be an object of settings by name`);
      for (const [name, settings] of Object.entries(byName)) checkSettings(settings, `guards:cache: ${kind}[${JSON.stringify(name)}]`);
    }
    this.store = store ?? new MemoryResultCache();
    this.perItem = { tools: options.tools, resources: options.resources, prompts: options.prompts };
  }

  /** Called by `server.plugin(cache)`, once. */
  register(host: PluginHost): void {
    if (this.host !== undefined) throw new DefinitionError('INVALID_OPTION', 'guards:cache: this ResultCache is already added to a server; make one per server');
    this.host = host;
    const interceptor: Interceptor = (ctx, next) => {
      const found = itemSettings<CacheSettings>(host, CACHE_GUARD, this.perItem, ctx.method, ctx.params);
      if (found === undefined || found.settings === undefined) return next();
      const state = this.stateOf(found.item, found.settings);
      if (state.guarded) return next();
      const key = keyOf(state, ctx);
      if (key === undefined) return next();
      return this.serve(state, key, ctx.context, next);
    };
    host.intercept(interceptor);
    // Heard on every replica: each drops what it may have kept of the resource (a shared store, once per replica).
    host.observe({
      resourceUpdated: (uri) => {
        this.invalidateResource(uri).catch((error: unknown) => this.storeFailed(error));
      },
    });
  }

  /** Drops every cached result of the tool `name` (every caller's, every arguments'). */
  invalidateTool(name: string): Promise<void> {
    return this.invalidate('tool', name);
  }

  /** Drops every cached read of the resource `uri`; `server.resources.notifyUpdated(uri)` does it too. */
  invalidateResource(uri: string): Promise<void> {
    return this.invalidate('resource', uri);
  }

  /** Drops every cached result of the prompt `name`. */
  invalidatePrompt(name: string): Promise<void> {
    return this.invalidate('prompt', name);
  }

  private invalidate(kind: ServedItem['kind'], name: string): Promise<void> {
    if (typeof name !== 'string') return Promise.reject(new TypeError(`guards:cache: invalidate${kind[0].toUpperCase()}${kind.slice(1)} needs a string`));
    this.epoch++;
    try {
      return Promise.resolve(this.store.invalidate(groupOf(kind, name)));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** The item's state, made once per target (again when the request names another uri of its template, or its settings changed). */
  private stateOf(item: ServedItem, settings: CacheSettings): ItemState {
    const known = this.items.get(item.target);
    if (known !== undefined && known.name === item.name && known.settings === settings) return known;
    const state: ItemState = { kind: item.kind, name: item.name, settings, group: groupOf(item.kind, item.name), guarded: hasGuard(item.target), scope: settings.scope ?? 'private' };
    this.items.set(item.target, state);
    return state;
  }

  /** A hit, a miss joining one running, or a miss run here; synchronous when the store and the item are. */
  private serve(state: ItemState, key: string, context: Context, next: () => unknown): unknown {
    const flight = this.flightOf(state.group, key);
    if (flight !== undefined) return this.join(flight, state, context, next);
    let entry: StoreEntry | Promise<StoreEntry>;
    try {
      entry = this.store.get(state.group, key);
    } catch (error) {
      this.storeFailed(error);
      return this.run(state, key, context, next);
    }
    if (entry instanceof Promise) {
      return entry.then(
        (found) => {
          this.storeAnswered();
          const hit = this.hit(state, found, context);
          if (hit !== undefined) return hit;
          // Another miss of the key may have started while the store answered.
          const started = this.flightOf(state.group, key);
          return started !== undefined ? this.join(started, state, context, next) : this.run(state, key, context, next);
        },
        (error: unknown) => {
          this.storeFailed(error);
          const started = this.flightOf(state.group, key);
          return started !== undefined ? this.join(started, state, context, next) : this.run(state, key, context, next);
        },
      );
    }
    this.storeAnswered();
    return this.hit(state, entry, context) ?? this.run(state, key, context, next);
  }

  /** The stored result, parsed once (each caller its own copy), or undefined on a miss or an entry that is not a result (reported). */
  private hit(state: ItemState, entry: StoreEntry, context: Context): Record<string, unknown> | undefined {
    if (entry === undefined) return undefined;
    const result = parsed(entry.value);
    if (result === undefined) {
      this.storeFailed(new Error(`the entry under ${state.group} is not a serialised result`));
      return undefined;
    }
    hint(context, state, entry.ttlMs);
    return result;
  }

  /** The miss of `key` running on this replica that a request may still join (none older than an invalidation). */
  private flightOf(group: string, key: string): Flight | undefined {
    // Most calls find none: no id is made while nothing is in flight.
    if (this.flights.size === 0) return undefined;
    const flight = this.flights.get(flightId(group, key));
    return flight !== undefined && flight.epoch === this.epoch ? flight : undefined;
  }

  /** Waits for the miss running on this replica: its result, or runs the item itself when it may not be shared. */
  private join(flight: Flight, state: ItemState, context: Context, next: () => unknown): Promise<unknown> {
    return flight.value.then((value) => {
      const shared = parsed(value);
      if (shared === undefined) return next();
      hint(context, state, state.settings.ttlMs);
      return shared;
    });
  }

  /**
   * The miss of this replica for `key`: runs the item and keeps its result. An asynchronous item
   * is a flight that concurrent misses of the key wait for; a synchronous one runs in one go, so
   * none can arrive meanwhile (and none was cancelled meanwhile: a cancellation cannot come in
   * while it runs). What the item throws at once goes to the caller as it is.
   */
  private run(state: ItemState, key: string, context: Context, next: () => unknown): unknown {
    const epoch = this.epoch;
    const result = next();
    // A synchronous item ran in one go, but the request may have been cancelled before it ran (held by an outer guard).
    if (!(result instanceof Promise)) return this.keep(state, key, context, context.cancelled ? undefined : epoch, result, undefined);
    const id = flightId(state.group, key);
    let share!: (value: string | undefined) => void;
    const flight: Flight = { epoch, value: new Promise((resolve) => (share = resolve)) };
    this.flights.set(id, flight);
    // Lighter than ctx.signal (no AbortController): a result the request was cancelled before is not kept.
    let cancelled = false;
    const stopListening = context.onCancel(() => {
      cancelled = true;
    });
    return result.then(
      (value: unknown) => {
        stopListening();
        return this.keep(state, key, context, cancelled ? undefined : epoch, value, { id, flight, share });
      },
      (error: unknown) => {
        stopListening();
        share(undefined);
        this.land(id, flight);
        throw error;
      },
    );
  }

  /**
   * Serialises a result once and stores it (unless it may not be kept: see `cacheable`, or an
   * invalidation came while it ran, or `epoch` is undefined for a cancelled run), shares it with
   * the flight's waiters, and returns it to its caller.
   */
  private keep(state: ItemState, key: string, context: Context, epoch: number | undefined, result: unknown, pending: Pending | undefined): unknown {
    const value = epoch === this.epoch && cacheable(state.kind, result) ? serialise(state.kind, result as Record<string, unknown>) : undefined;
    if (value === undefined) {
      if (pending !== undefined) {
        pending.share(undefined);
        this.land(pending.id, pending.flight);
      }
      return result;
    }
    pending?.share(value);
    hint(context, state, state.settings.ttlMs);
    let stored: void | Promise<void>;
    try {
      stored = this.store.set(state.group, key, value, state.settings.ttlMs);
    } catch (error) {
      this.storeFailed(error);
      if (pending !== undefined) this.land(pending.id, pending.flight);
      return result;
    }
    if (stored instanceof Promise) {
      // Not awaited: the caller has its result now; a flight stands until the store has it, so misses meanwhile wait for it.
      let id: string;
      let flight: Flight;
      if (pending !== undefined) ({ id, flight } = pending);
      else this.flights.set((id = flightId(state.group, key)), (flight = { epoch: this.epoch, value: Promise.resolve(value) }));
      stored.then(
        () => this.storeAnswered(),
        (error: unknown) => this.storeFailed(error),
      ).finally(() => this.land(id, flight));
    } else {
      this.storeAnswered();
      if (pending !== undefined) this.land(pending.id, pending.flight);
    }
    return result;
  }

  /** Ends a flight, unless a newer one of its key took its place. */
  private land(id: string, flight: Flight): void {
    if (this.flights.get(id) === flight) this.flights.delete(id);
  }

  private storeFailed(error: unknown): void {
    const now = Date.now();
    // Once per burst: the first failure after the store answered, then once a minute while it does not.
    if (!this.failing || now - this.reportedAt >= REPORT_AGAIN_MS) {
      this.reportedAt = now;
      this.host?.reportError('the result cache store failed; items run without the cache until it answers', error);
    }
    this.failing = true;
  }

  private storeAnswered(): void {
    this.failing = false;
  }
}

/** An asynchronous miss's flight, which its result settles. */
interface Pending {
  readonly id: string;
  readonly flight: Flight;
  readonly share: (value: string | undefined) => void;
}

/** One id per (group, key): the group's length first, so no group and key pair reads as another. */
function flightId(group: string, key: string): string {
  return `${group.length}:${group}${key}`;
}

/**
 * Caches the results of the tool, resource or prompt this method serves for `ttlMs`, per caller
 * (`scope: 'private'`, the default) or for everyone (`'public'`), while a `ResultCache` is added
 * to the server; the plugin's options for the same item win. Opt-in only: `readOnlyHint` does
 * not make a tool cacheable.
 */
export function CacheResult(settings: CacheSettings): MethodDecorator {
  checkSettings(settings, '@CacheResult');
  return declareGuard(CACHE_GUARD, settings);
}

function checkSettings(settings: unknown, where: string): asserts settings is CacheSettings {
  if (typeof settings !== 'object' || settings === null) throw new TypeError(`${where}: settings must be an object { ttlMs, scope? }`);
  const { ttlMs, scope } = settings as Record<string, unknown>;
  if (!Number.isSafeInteger(ttlMs) || (ttlMs as number) <= 0) throw new TypeError(`${where}: ttlMs must be a positive integer (ms), not ${String(ttlMs)}`);
  if (scope !== undefined && scope !== 'private' && scope !== 'public') throw new TypeError(`${where}: scope must be "private" or "public", not ${JSON.stringify(scope)}`);
}

/** The group an item's entries share: invalidated at once. A resource's is its uri. */
function groupOf(kind: ServedItem['kind'], name: string): string {
  return `${kind}:${name}`;
}

/** Whether a `@Guard` decides access to the target (on its method or class): then nothing is cached, a hit would skip it. */
function hasGuard(target: InvocationTarget): boolean {
  const { classLevel, methodLevel } = metadataStore.accessOf(target.provider, target.methodName);
  return [...classLevel, ...methodLevel].some((declared) => declared.guard !== undefined);
}

/** What a principal's private and public keys start with, made once per principal (principals are read-only). */
interface CallerPrefixes {
  readonly private: string;
  readonly public: string;
}

const prefixesOf = new WeakMap<Principal, CallerPrefixes>();

/**
 * The start of a principal's keys: who it is (private entries only) and its grant, what of it
 * its access depends on (its scopes and roles: the server checks `@Scopes` and `@Roles` on
 * those alone), so a hit never reaches a caller the item would refuse.
 */
function callerPrefixes(principal: Principal): CallerPrefixes {
  let prefixes = prefixesOf.get(principal);
  if (prefixes === undefined) {
    const grant = JSON.stringify([[...new Set(principal.scopes)].sort(), [...new Set(principal.roles ?? [])].sort()]);
    prefixes = { private: `${principalCaller(principal).key}\n${grant}\n`, public: `public\n${grant}\n` };
    prefixesOf.set(principal, prefixes);
  }
  return prefixes;
}

/**
 * What one request is cached under, whole: `<caller>\n<grant>\n<canonical arguments>` (a store
 * that needs short keys hashes it); undefined when it is not cached (see the caching
 * reference's privacy rules).
 */
function keyOf(state: ItemState, ctx: MiddlewareContext): string | undefined {
  const { params, context } = ctx;
  // A call asking for a task wants a task handle; answers to questions shape the result beyond the arguments.
  if (params.task !== undefined || params.inputResponses !== undefined || params.requestState !== undefined) return undefined;
  const principal = context.principal;
  let prefix: string;
  if (principal !== undefined) {
    const prefixes = callerPrefixes(principal);
    prefix = state.scope === 'public' ? prefixes.public : prefixes.private;
  } else if (state.scope === 'public') prefix = ANONYMOUS_PUBLIC;
  // Without a principal, only a stdio or in-memory connection names one client.
  else if (context.httpRequest === undefined) prefix = ANONYMOUS_LOCAL;
  else return undefined;
  // A resource's uri is in its group: the key is the caller alone.
  if (state.kind === 'resource') return prefix;
  try {
    return prefix + canonicalJson(params.arguments ?? {});
  } catch {
    // Nested beyond the stack: not worth a key; the item checks it as usual.
    return undefined;
  }
}

/**
 * A result that may be kept: an object, complete (not a task handle nor `input_required`),
 * not a tool error. (A cancelled request's is not offered: see `ResultCache.run`.)
 */
function cacheable(kind: ServedItem['kind'], result: unknown): boolean {
  if (typeof result !== 'object' || result === null || Array.isArray(result)) return false;
  const record = result as Record<string, unknown>;
  if (record.task !== undefined || (record.resultType !== undefined && record.resultType !== 'complete')) return false;
  return kind !== 'tool' || record.isError !== true;
}

/** The result as stored, or undefined when it is not JSON. A read's own hints are left out: the cache's are sent. */
function serialise(kind: ServedItem['kind'], result: Record<string, unknown>): string | undefined {
  let kept = result;
  if (kind === 'resource' && ('ttlMs' in result || 'cacheScope' in result)) {
    const { ttlMs: _ttl, cacheScope: _scope, ...rest } = result;
    kept = rest;
  }
  try {
    return JSON.stringify(kept);
  } catch {
    return undefined;
  }
}

/** A stored result, each caller its own copy; undefined when it is not a result object. */
function parsed(value: string | undefined): Record<string, unknown> | undefined {
  if (value === undefined) return undefined;
  try {
    const result: unknown = JSON.parse(value);
    return typeof result === 'object' && result !== null && !Array.isArray(result) ? (result as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** 2026-07-28 `ttlMs` and `cacheScope` of a read, as the cache serves it (older eras send none; tool results have none). */
function hint(context: Context, state: ItemState, ttlMs: number): void {
  if (state.kind !== 'resource') return;
  context.hintResult({ ttlMs: Math.max(0, Math.floor(ttlMs)), cacheScope: state.scope });
}
