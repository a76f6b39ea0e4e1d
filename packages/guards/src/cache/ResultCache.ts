import { DefinitionError, metadataStore } from '@typemcp/core';
import type { Context, InvocationTarget, Middleware, MiddlewareContext, Plugin, PluginHost, Principal, ServedItem } from '@typemcp/core';
import { principalCaller } from '../callers';
import { declareGuard, itemSettings } from '../items';
import type { PerItem } from '../items';
import { canonicalJson, storeKey } from './keys';
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

/** A miss being computed on this replica, which concurrent misses of its key wait for. */
interface Flight {
  /** The invalidation count when it started: a flight older than an invalidation is not joined. */
  readonly epoch: number;
  /** The serialised result, or undefined when it may not be shared (failed, not cacheable, invalidated meanwhile). */
  readonly value: Promise<string | undefined>;
}

/** What one request is cached under. */
interface Lookup {
  readonly group: string;
  readonly key: string;
  readonly settings: CacheSettings;
  readonly kind: ServedItem['kind'];
}

/**
 * Caches results of the tools, resources and prompts an author opts in (`@CacheResult` or the
 * options): the first call runs the item, the calls with the same arguments within `ttlMs` get
 * its result. Add it with `server.plugin(cache)`; it is its own plugin object so the author can
 * invalidate (`invalidateTool`, `invalidateResource`, `invalidatePrompt`). One instance per
 * server; replicas share results through a shared store (`RedisResultCache`).
 */
export class ResultCache implements Plugin<void> {
  readonly name = 'guards:cache';
  private readonly store: ResultCacheStore;
  private readonly perItem: PerItem<CacheSettings>;
  private readonly flights = new Map<string, Flight>();
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
    const middleware: Middleware = (ctx, next) => {
      const found = itemSettings<CacheSettings>(host, CACHE_GUARD, this.perItem, ctx.method, ctx.params);
      if (found?.settings === undefined) return next();
      return this.serve(found.item, found.settings, ctx, next);
    };
    host.use(middleware);
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
    return this.store.invalidate(groupOf(kind, name));
  }

  private async serve(item: ServedItem, settings: CacheSettings, ctx: MiddlewareContext, next: () => Promise<unknown>): Promise<unknown> {
    const lookup = await this.lookupOf(item, settings, ctx);
    if (lookup === undefined) return next();
    const context = ctx.context;
    const id = `${lookup.group.length}:${lookup.group}${lookup.key}`;
    let flight = this.flightOf(id);
    if (flight === undefined) {
      const hit = await this.read(lookup);
      if (hit !== undefined) {
        hint(context, lookup, hit.ttlMs);
        return hit.result;
      }
      // Another miss of the key may have started while the store answered.
      flight = this.flightOf(id);
      if (flight === undefined) return this.run(id, lookup, context, next);
    }
    const shared = parsed(await flight.value);
    if (shared === undefined) return next();
    hint(context, lookup, lookup.settings.ttlMs);
    return shared;
  }

  /** The miss of `id` running on this replica that a request may still join (none older than an invalidation). */
  private flightOf(id: string): Flight | undefined {
    const flight = this.flights.get(id);
    return flight !== undefined && flight.epoch === this.epoch ? flight : undefined;
  }

  /** The miss of this replica for `id`: runs the item, shares its result with the misses that wait, stores it. */
  private async run(id: string, lookup: Lookup, context: Context, next: () => Promise<unknown>): Promise<unknown> {
    const epoch = this.epoch;
    let share!: (value: string | undefined) => void;
    const flight: Flight = { epoch, value: new Promise((resolve) => (share = resolve)) };
    this.flights.set(id, flight);
    const done = () => {
      if (this.flights.get(id) === flight) this.flights.delete(id);
    };
    let result: unknown;
    try {
      result = await next();
    } catch (error) {
      share(undefined);
      done();
      throw error;
    }
    const value = cacheable(lookup.kind, result, context) ? serialise(lookup.kind, result as Record<string, unknown>) : undefined;
    if (value === undefined || epoch !== this.epoch) {
      share(undefined);
      done();
      return result;
    }
    share(value);
    hint(context, lookup, lookup.settings.ttlMs);
    // Not awaited: the caller has its result now; the flight stands until the store has it.
    this.store.set(lookup.group, lookup.key, value, lookup.settings.ttlMs).then(
      () => this.storeAnswered(),
      (error: unknown) => this.storeFailed(error),
    ).finally(done);
    return result;
  }

  /** The group and key of a request, or undefined when it is not cached (see the caching reference's privacy rules). */
  private async lookupOf(item: ServedItem, settings: CacheSettings, ctx: MiddlewareContext): Promise<Lookup | undefined> {
    const { params, context } = ctx;
    // A call asking for a task wants a task handle; answers to questions shape the result beyond the arguments.
    if (params.task !== undefined || params.inputResponses !== undefined || params.requestState !== undefined) return undefined;
    const principal = context.principal;
    const grant = grantOf(item.target, principal);
    if (grant === undefined) return undefined;
    let caller = 'public';
    if ((settings.scope ?? 'private') === 'private') {
      if (principal !== undefined) caller = principalCaller(principal).key;
      // Without a principal, only a stdio or in-memory connection names one client.
      else if (context.httpRequest === undefined) caller = 'local';
      else return undefined;
    }
    let args = '';
    if (item.kind !== 'resource') {
      try {
        args = canonicalJson(params.arguments ?? {});
      } catch {
        // Nested beyond the stack: not worth a key; the item checks it as usual.
        return undefined;
      }
    }
    return { group: groupOf(item.kind, item.name), key: await storeKey(`${caller}\n${grant}\n${args}`), settings, kind: item.kind };
  }

  /** The stored result, or undefined on a miss, a store failure (reported) or an entry that is not a result. */
  private async read(lookup: Lookup): Promise<{ result: Record<string, unknown>; ttlMs: number } | undefined> {
    let entry: { value: string; ttlMs: number } | undefined;
    try {
      entry = await this.store.get(lookup.group, lookup.key);
    } catch (error) {
      this.storeFailed(error);
      return undefined;
    }
    this.storeAnswered();
    if (entry === undefined) return undefined;
    const result = parsed(entry.value);
    if (result === undefined) {
      this.storeFailed(new Error(`the entry under ${lookup.group} is not a serialised result`));
      return undefined;
    }
    return { result, ttlMs: entry.ttlMs };
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

/** Per target: whether a `@Guard` decides access (then nothing is cached: a hit would skip it). */
const guarded = new WeakMap<InvocationTarget, boolean>();

/**
 * What of the caller its access depends on, so a hit never reaches a caller the item would
 * refuse: anonymous, or its scopes and roles (the server checks `@Scopes` and `@Roles` on those
 * alone). Undefined for an item behind a `@Guard`, which may decide on anything.
 */
function grantOf(target: InvocationTarget, principal: Principal | undefined): string | undefined {
  let hasGuard = guarded.get(target);
  if (hasGuard === undefined) {
    const { classLevel, methodLevel } = metadataStore.accessOf(target.provider, target.methodName);
    hasGuard = [...classLevel, ...methodLevel].some((declared) => declared.guard !== undefined);
    guarded.set(target, hasGuard);
  }
  if (hasGuard) return undefined;
  if (principal === undefined) return 'anonymous';
  return JSON.stringify([[...new Set(principal.scopes)].sort(), [...new Set(principal.roles ?? [])].sort()]);
}

/**
 * A result that may be kept: an object, complete (not a task handle nor `input_required`),
 * not a tool error, from a request that was not cancelled or ended early.
 */
function cacheable(kind: ServedItem['kind'], result: unknown, context: Context): boolean {
  if (typeof result !== 'object' || result === null || Array.isArray(result) || context.signal.aborted) return false;
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
function hint(context: Context, lookup: Lookup, ttlMs: number): void {
  if (lookup.kind !== 'resource') return;
  context.hintResult({ ttlMs: Math.max(0, Math.floor(ttlMs)), cacheScope: lookup.settings.scope ?? 'private' });
}
