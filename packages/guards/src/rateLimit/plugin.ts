import { InternalError, RateLimitedError } from '@typemcp/core';
import type { Context, HttpStageReply, HttpStageRequest, MiddlewareContext, Plugin, PluginHost } from '@typemcp/core';
import { addressKey, callerOf, ClientAddresses } from '../callers';
import { itemSettings } from '../items';
import { RATE_LIMIT_KEY } from './decorator';
import { keyPart, namePart } from './keys';
import { MemoryRateLimitStore } from './MemoryRateLimitStore';
import { checkOptions, sameLimit } from './options';
import type { CheckedOptions, CheckedRule, RateLimitOptions, ResolvedLimit } from './options';
import type { RateDecision, RateLimitStore } from './RateLimitStore';

const NAME = 'guards:rate-limit';

/** One count a request is checked against, made once per rule or item. */
interface Check {
  /** The key's prefix (`rl:t:search`), a promise while a long name is hashed, then its text; the caller's key part follows it for a per-caller limit. */
  prefix: string | Promise<string>;
  readonly limit: ResolvedLimit;
  /** What is limited, as the message names it: `tool "search"`. */
  readonly subject: string;
  /** What it counts: `calls`, `reads`, `requests`. */
  readonly unit: string;
  /** The whole key for the caller seen last (or `server`): a caller calling again reuses it. */
  lastPart?: string;
  lastKey?: string;
}

const NO_CHECKS: readonly Check[] = [];

/**
 * Rate limits as a plugin (`server.plugin(rateLimit, options)`): server-wide rules (`limits`),
 * limits per tool, prompt or resource (`tools`, `prompts`, `resources`, or `@RateLimit` on the
 * method), and over HTTP a limit per client address checked before authentication
 * (`perAddress`). Requests are counted per caller (its principal, else its address behind
 * `trustProxies`) or per server. A request over a limit is refused before any work with
 * `RateLimitedError` (-32023, `data.retryAfterMs`; HTTP 429 with `Retry-After` when answered on
 * its own). Counts live in `store`: in memory by default, on Redis for replicas.
 */
export const rateLimit: Plugin<RateLimitOptions> = {
  name: NAME,
  register(host, options) {
    const checked = checkOptions(NAME, options);
    const addresses = prefixed(() => new ClientAddresses(checked.trustProxies));
    const limiter = new Limiter(host, checked, checked.store ?? new MemoryRateLimitStore());
    const serverWide = checked.rules.map((rule) => ruleCheck(rule));
    // An interceptor: with a store that answers at once (the memory store), a request it lets
    // through stays synchronous, and one it refuses throws at once.
    host.intercept((mctx, next) => {
      if (serverWide.length === 0) {
        // Limits per item only: at most one check, and no array made for it.
        const check = limiter.itemCheckOf(mctx);
        if (check === undefined) return next();
        const passed = limiter.enforceOne(check, mctx.context, addresses);
        return passed === undefined ? next() : passed.then(() => next());
      }
      const checks = limiter.checksOf(mctx, serverWide);
      if (checks.length === 0) return next();
      const passed = limiter.enforce(checks, mctx.context, addresses);
      return passed === undefined ? next() : passed.then(() => next());
    });
    const perAddress = checked.perAddress;
    if (perAddress !== undefined) {
      host.httpStage({
        name: 'guards:rate-limit-address',
        // Before the token is checked: a flood of anonymous or forged tokens costs no verification.
        before: 'authenticate',
        handle: (request) => limiter.enforceAddress(request, perAddress, addresses),
      });
    }
  },
};

/** Runs `make`, prefixing the TypeError it throws with the plugin's name. */
function prefixed<T>(make: () => T): T {
  try {
    return make();
  } catch (error) {
    if (error instanceof TypeError) throw new TypeError(`${NAME}: ${error.message}`);
    throw error;
  }
}

function ruleCheck(rule: CheckedRule): Check & { readonly rule: CheckedRule } {
  return settling({
    rule,
    prefix: withPart('rl:l:', namePart(rule.name)),
    limit: rule,
    subject: rule.named ? `"${rule.name}"` : 'the server',
    unit: rule.tools !== undefined ? 'calls' : rule.methods?.size === 1 ? `${[...rule.methods][0]} requests` : 'requests',
    lastPart: undefined,
    lastKey: undefined,
  });
}

function withPart(head: string, part: string | Promise<string>): string | Promise<string> {
  return typeof part === 'string' ? head + part : part.then((text) => head + text);
}

/** A check whose prefix is being hashed gets its text once it is: later requests need not wait. */
function settling<C extends Check>(check: C): C {
  const prefix = check.prefix;
  // A failed hash stays a rejected promise: each request that needs it fails, as it would have.
  if (typeof prefix !== 'string') prefix.then((text) => void (check.prefix = text), () => undefined);
  return check;
}

/** The whole store key of `check` for a caller's key part (or `server`), when its prefix is known. */
function keyOf(check: Check, part: string): string | Promise<string> {
  if (part === check.lastPart) return check.lastKey!;
  const prefix = check.prefix;
  if (typeof prefix !== 'string') return prefix.then((text) => `${text}:${part}`);
  const key = `${prefix}:${part}`;
  check.lastPart = part;
  check.lastKey = key;
  return key;
}

/** What the store decided: a decision, undefined (it failed; let through), 'refuse' (it failed; refuse). */
type Decided = RateDecision | 'refuse' | undefined;

const KIND_LETTER = { tool: 't', prompt: 'p', resource: 'r' } as const;
const KIND_UNIT = { tool: 'calls', prompt: 'requests', resource: 'reads' } as const;

/** Counts requests in the store and refuses those over a limit. */
class Limiter {
  /** Whether the store failed since it last answered: failures are reported once per run. */
  private storeFailing = false;
  /** The limit each group counts by: the options' groups, then the first `@RateLimit` met for a group. */
  private readonly groups: Map<string, ResolvedLimit>;
  /** The check of each item by kind and name, and of each group by name. */
  private readonly itemChecks = { tool: new Map<string, Check>(), prompt: new Map<string, Check>(), resource: new Map<string, Check>(), group: new Map<string, Check>() };
  private readonly warnedGroups = new Set<string>();
  /** The caller's key seen last and its key part (hashed when long): a caller calling again reuses it. */
  private lastCaller = '';
  private lastCallerPart: string | Promise<string> = '';

  constructor(
    private readonly host: PluginHost,
    private readonly options: CheckedOptions,
    private readonly store: RateLimitStore,
  ) {
    this.groups = new Map(options.groups);
  }

  /** The counts a request is checked against, server-wide rules first; usually none or one. */
  checksOf(mctx: MiddlewareContext, serverWide: ReadonlyArray<Check & { readonly rule: CheckedRule }>): readonly Check[] {
    const { method, params } = mctx;
    let checks: Check[] | undefined;
    for (const check of serverWide) {
      const { methods, tools } = check.rule;
      if (tools !== undefined ? method === 'tools/call' && typeof params.name === 'string' && tools.has(params.name) : methods === undefined || methods.has(method)) (checks ??= []).push(check);
    }
    const check = this.itemCheckOf(mctx);
    if (check === undefined) return checks ?? NO_CHECKS;
    if (checks === undefined) return [check];
    checks.push(check);
    return checks;
  }

  /** The count of the item a request names, if it has a limit. */
  itemCheckOf(mctx: MiddlewareContext): Check | undefined {
    const found = itemSettings(this.host, RATE_LIMIT_KEY, this.options.items, mctx.method, mctx.params);
    return found?.settings === undefined ? undefined : this.itemCheck(found.item.kind, this.countedName(found.item), found.settings);
  }

  /** `enforce` of one check: undefined at once when allowed, a throw when refused, a promise when a part of it waits. */
  enforceOne(check: Check, ctx: Context, addresses: ClientAddresses): Promise<void> | undefined {
    let key: string | Promise<string>;
    if (check.limit.per === 'caller') {
      const part = this.callerPart(ctx, addresses);
      if (typeof part !== 'string') return this.enforceLater([check], 0, ctx, addresses, part);
      key = keyOf(check, part);
    } else key = keyOf(check, 'server');
    if (typeof key !== 'string') return this.enforceLater([check], 0, ctx, addresses, undefined);
    const decision = this.take(key, check.limit);
    if (decision instanceof Promise) return decision.then((answer) => this.judge(check, answer));
    this.judge(check, decision);
    return undefined;
  }

  /**
   * Checks each count in turn; the first one over its limit refuses the request (later ones are
   * not counted). Answers at once (undefined, or a throw) while every part of it does: a known
   * key, a store that answers synchronously; a promise from the first part that does not.
   */
  enforce(checks: readonly Check[], ctx: Context, addresses: ClientAddresses): Promise<void> | undefined {
    let part: string | Promise<string> | undefined;
    for (let i = 0; i < checks.length; i++) {
      const check = checks[i];
      let key: string | Promise<string>;
      if (check.limit.per === 'caller') {
        part ??= this.callerPart(ctx, addresses);
        if (typeof part !== 'string') return this.enforceLater(checks, i, ctx, addresses, part);
        key = keyOf(check, part);
      } else key = keyOf(check, 'server');
      if (typeof key !== 'string') return this.enforceLater(checks, i, ctx, addresses, part);
      const decision = this.take(key, check.limit);
      if (decision instanceof Promise) {
        const caller = part;
        return decision.then((answer) => {
          this.judge(check, answer);
          return this.enforceLater(checks, i + 1, ctx, addresses, caller);
        });
      }
      this.judge(check, decision);
    }
    return undefined;
  }

  /** `enforce` from `checks[from]` on, once a part of it has to wait. */
  private async enforceLater(checks: readonly Check[], from: number, ctx: Context, addresses: ClientAddresses, part: string | Promise<string> | undefined): Promise<void> {
    for (let i = from; i < checks.length; i++) {
      const check = checks[i];
      const key = await keyOf(check, check.limit.per === 'caller' ? await (part ??= this.callerPart(ctx, addresses)) : 'server');
      this.judge(check, await this.take(key, check.limit));
    }
  }

  /** Throws when the store's decision refuses the request (or the store failed and fails closed). */
  private judge(check: Check, decision: RateDecision | 'refuse' | undefined): void {
    if (decision === 'refuse') throw new InternalError('Rate limits cannot be checked now; try again later');
    if (decision !== undefined && !decision.allowed) throw this.refusal(check, decision);
  }

  /** The caller's part of a key: its key, hashed when long or unusual (once, then remembered). */
  private callerPart(ctx: Context, addresses: ClientAddresses): string | Promise<string> {
    const key = callerOf(ctx, addresses).key;
    if (key === this.lastCaller) return this.lastCallerPart;
    const part = keyPart(key);
    // A hash under way is not remembered here: keyPart remembers it once computed.
    if (typeof part === 'string') {
      this.lastCaller = key;
      this.lastCallerPart = part;
    }
    return part;
  }

  /** The HTTP stage: every request to the endpoint, counted by client address before authentication. */
  async enforceAddress(request: HttpStageRequest, limit: ResolvedLimit, addresses: ClientAddresses): Promise<HttpStageReply | undefined> {
    const address = addresses.resolve(request.clientAddress, request.headers);
    const decision = await this.take(`rl:a:${await keyPart(address === undefined ? 'unknown' : addressKey(address))}`, limit);
    if (decision === 'refuse') {
      const error = { code: -32000, message: 'Service Unavailable: rate limits cannot be checked now; try again later' };
      return { status: 503, headers: { 'content-type': 'application/json', 'retry-after': '1' }, body: JSON.stringify({ jsonrpc: '2.0', error }) };
    }
    if (decision !== undefined && !decision.allowed) {
      throw this.refusal({ prefix: '', limit, subject: 'this address', unit: 'requests' }, decision, 'may send');
    }
    return undefined;
  }

  /**
   * The store's decision, at once when the store answers at once: undefined to let the request
   * through when the store fails open, 'refuse' when it fails closed.
   */
  private take(key: string, limit: ResolvedLimit): Decided | Promise<Decided> {
    let answer: RateDecision | Promise<RateDecision>;
    try {
      answer = this.store.take(key, limit);
    } catch (error) {
      return this.failed(error);
    }
    return answer instanceof Promise ? answer.then((decision) => this.decided(decision), (error: unknown) => this.failed(error)) : this.decided(answer);
  }

  private decided(decision: RateDecision): Decided {
    if (typeof decision !== 'object' || decision === null || typeof decision.allowed !== 'boolean') {
      return this.failed(new TypeError(`the store answered ${JSON.stringify(decision) ?? String(decision)}, not { allowed, remaining, retryAfterMs }`));
    }
    this.storeFailing = false;
    return decision;
  }

  private failed(error: unknown): Decided {
    if (!this.storeFailing) {
      this.storeFailing = true;
      const policy = this.options.onStoreError === 'allow' ? 'requests are let through (onStoreError: "allow")' : 'requests are refused (onStoreError: "refuse")';
      this.host.reportError(`the rate limit store failed; until it answers again, ${policy}`, error);
    }
    return this.options.onStoreError === 'allow' ? undefined : 'refuse';
  }

  private refusal(check: Check, decision: RateDecision, verb = 'allows'): RateLimitedError {
    const { limit, windowMs, per } = check.limit;
    // A store's answer past the window (or not a number) is not believed: no request waits longer than its window.
    const retryAfterMs = typeof decision.retryAfterMs === 'number' && decision.retryAfterMs > 0 ? Math.min(decision.retryAfterMs, windowMs) : 0;
    const whom = verb === 'may send' ? '' : per === 'caller' ? ' per caller' : ' across all callers';
    const unit = limit === 1 ? check.unit.replace(/s$/, '') : check.unit;
    const message = `Rate limit: ${check.subject} ${verb} ${limit} ${unit} per ${duration(windowMs)}${whom}; retry in ${Math.max(1, Math.ceil(retryAfterMs / 1000))} s`;
    return new RateLimitedError(message, retryAfterMs, this.options.quota ? { limit, remaining: Math.max(0, Math.floor(decision.remaining) || 0) } : {});
  }

  /** The name an item is counted by: a resource by the uri its limit names, else by its template. */
  private countedName(item: { kind: 'tool' | 'prompt' | 'resource'; name: string; target: { name: string } }): string {
    if (item.kind !== 'resource') return item.name;
    const byUri = this.options.items.resources;
    return byUri !== undefined && Object.prototype.hasOwnProperty.call(byUri, item.name) ? item.name : item.target.name;
  }

  private itemCheck(kind: 'tool' | 'prompt' | 'resource', name: string, settings: ResolvedLimit & { readonly group?: string }): Check {
    const { group } = settings;
    const checks = this.itemChecks[group === undefined ? kind : 'group'];
    const id = group === undefined ? name : group;
    const cached = checks.get(id);
    // The same settings as last time (the usual case): nothing to compare.
    if (cached !== undefined && cached.limit === settings) return cached;
    if (cached !== undefined && (group !== undefined || sameLimit(cached.limit, settings))) {
      if (group !== undefined && !sameLimit(cached.limit, settings)) this.warnGroup(group, kind, name);
      return cached;
    }
    let check: Check;
    if (group === undefined) {
      check = settling({ prefix: withPart(`rl:${KIND_LETTER[kind]}:`, namePart(name)), limit: settings, subject: `${kind} "${name}"`, unit: KIND_UNIT[kind], lastPart: undefined, lastKey: undefined });
    } else {
      let limit = this.groups.get(group);
      if (limit === undefined) this.groups.set(group, (limit = settings));
      else if (!sameLimit(limit, settings)) this.warnGroup(group, kind, name);
      check = settling({ prefix: withPart('rl:g:', namePart(group)), limit, subject: `group "${group}"`, unit: 'requests', lastPart: undefined, lastKey: undefined });
    }
    // Bounded by the items the server serves (and the groups declared): names nothing serves never get here.
    checks.set(id, check);
    return check;
  }

  /** Items of one group declared different limits: the group's first one counts; said once per group. */
  private warnGroup(group: string, kind: string, name: string): void {
    if (this.warnedGroups.has(group)) return;
    this.warnedGroups.add(group);
    const limit = this.groups.get(group)!;
    this.host.reportError(
      `${kind} "${name}" declares the rate limit group "${group}" with another limit; the group counts by its first (${limit.limit} per ${duration(limit.windowMs)}, ${limit.per}, ${limit.algorithm})`,
      new Error(`rate limit group "${group}" declared with different limits`),
    );
  }
}

/** A window as people read it: `60 s`, `5 min`, `1 h`, `250 ms`. */
export function duration(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0 && ms >= 120_000) return `${ms / 60_000} min`;
  if (ms % 1000 === 0) return `${ms / 1000} s`;
  return `${ms} ms`;
}
