import { DefinitionError } from '@typemcp/core';
import type { PerItem } from '../items';
import type { RateAlgorithm, RateLimitStore } from './RateLimitStore';

/** Whom a limit counts: each caller apart (its principal, else its address), or the whole server at once. */
export type RatePer = 'caller' | 'server';

/** A limit on one tool, prompt or resource (the plugin's `tools`/`prompts`/`resources`, or `@RateLimit`). */
export interface ItemRateLimit {
  /** Requests allowed per window: a positive integer. */
  readonly limit: number;
  /** The window, in ms: a positive integer. */
  readonly windowMs: number;
  /** Default `caller`. */
  readonly per?: RatePer;
  /** Default `sliding-window`. */
  readonly algorithm?: RateAlgorithm;
  /** Items of one group share one count (the group's name, instead of the item's, keys it). */
  readonly group?: string;
}

/** A limit of the whole server, or of a group of its tools. */
export interface RateLimitRule {
  /** Requests allowed per window: a positive integer. */
  readonly limit: number;
  /** The window, in ms: a positive integer. */
  readonly windowMs: number;
  /** Default `caller`. */
  readonly per?: RatePer;
  /** Default `sliding-window`. */
  readonly algorithm?: RateAlgorithm;
  /** The JSON-RPC methods it counts (`tools/call`, `resources/read`, …); default: every request. */
  readonly methods?: readonly string[];
  /** Tools sharing one count: only their `tools/call` requests are counted. Not with `methods`. */
  readonly tools?: readonly string[];
  /** Names the rule in messages and in store keys (default: its place, `limits[0]`). */
  readonly name?: string;
}

/** A limit of every request to the MCP endpoint from one client address, checked before authentication. */
export interface AddressRateLimit {
  readonly limit: number;
  readonly windowMs: number;
  /** Default `sliding-window`. */
  readonly algorithm?: RateAlgorithm;
}

/** Options of the `rateLimit` plugin. */
export interface RateLimitOptions extends PerItem<ItemRateLimit> {
  /** Server-wide rules, each counted on its own; a request must pass them all. */
  readonly limits?: readonly RateLimitRule[];
  /** Over HTTP: every request to the MCP endpoint, counted per client address before its token is checked. */
  readonly perAddress?: AddressRateLimit;
  /** The proxies whose `Forwarded`/`X-Forwarded-For` name the client (see `ClientAddresses`); default none. */
  readonly trustProxies?: readonly string[];
  /** Where counts are kept; default a `MemoryRateLimitStore` per registration (one replica). */
  readonly store?: RateLimitStore;
  /** When the store fails: `allow` the request (default, fail open) or `refuse` it. Reported once per run of failures. */
  readonly onStoreError?: 'allow' | 'refuse';
  /** Put `limit` and `remaining` in the error's data (and `RateLimit-*` headers over HTTP); default false. */
  readonly quota?: boolean;
}

/** A limit as the plugin applies it: every default filled in. */
export interface ResolvedLimit {
  readonly limit: number;
  readonly windowMs: number;
  readonly per: RatePer;
  readonly algorithm: RateAlgorithm;
}

const ALGORITHMS: readonly RateAlgorithm[] = ['sliding-window', 'token-bucket'];
const PERS: readonly RatePer[] = ['caller', 'server'];
const OPTION_KEYS = ['limits', 'tools', 'prompts', 'resources', 'perAddress', 'trustProxies', 'store', 'onStoreError', 'quota'];
const RULE_KEYS = ['limit', 'windowMs', 'per', 'algorithm', 'methods', 'tools', 'name'];
const ITEM_KEYS = ['limit', 'windowMs', 'per', 'algorithm', 'group'];
const ADDRESS_KEYS = ['limit', 'windowMs', 'algorithm'];

const describe = (value: unknown): string => (typeof value === 'string' ? JSON.stringify(value) : value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value === 'object' ? 'an object' : String(value));

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkKeys(where: string, value: Record<string, unknown>, known: readonly string[]): void {
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) throw new TypeError(`${where}: unknown option "${key}" (known: ${known.join(', ')})`);
  }
}

function checkName(where: string, value: unknown): string {
  if (typeof value !== 'string' || value === '') throw new TypeError(`${where} must be a non-empty string, got ${describe(value)}`);
  return value;
}

/** Checks the counting part every limit has; `where` names it in messages (`guards:rate-limit: tools.search`). */
export function checkLimit(where: string, value: unknown, keys: readonly string[]): ResolvedLimit {
  if (!isRecord(value)) throw new TypeError(`${where} must be an object { limit, windowMs, … }, got ${describe(value)}`);
  checkKeys(where, value, keys);
  const { limit, windowMs, per = 'caller', algorithm = 'sliding-window' } = value;
  if (!Number.isSafeInteger(limit) || (limit as number) < 1) throw new TypeError(`${where}.limit must be a positive integer, got ${describe(limit)}`);
  if (!Number.isSafeInteger(windowMs) || (windowMs as number) < 1) throw new TypeError(`${where}.windowMs must be a positive integer of ms (≥ 1), got ${describe(windowMs)}`);
  // Token buckets count in units of 1/windowMs of a token: limit × windowMs must stay an exact integer.
  if (!Number.isSafeInteger((limit as number) * (windowMs as number))) throw new TypeError(`${where}: limit × windowMs is too large (at most ${Number.MAX_SAFE_INTEGER})`);
  if (!PERS.includes(per as RatePer)) throw new TypeError(`${where}.per must be "caller" or "server", got ${describe(per)}`);
  if (!ALGORITHMS.includes(algorithm as RateAlgorithm)) throw new TypeError(`${where}.algorithm must be "sliding-window" or "token-bucket", got ${describe(algorithm)}`);
  return { limit: limit as number, windowMs: windowMs as number, per: per as RatePer, algorithm: algorithm as RateAlgorithm };
}

/** An item limit, checked: its group, if any, with it. */
export function checkItemLimit(where: string, value: unknown): ResolvedLimit & { readonly group?: string } {
  const resolved = checkLimit(where, value, ITEM_KEYS);
  const group = (value as ItemRateLimit).group;
  return group === undefined ? resolved : { ...resolved, group: checkName(`${where}.group`, group) };
}

/** A server-wide rule, checked. */
export interface CheckedRule extends ResolvedLimit {
  readonly name: string;
  /** Whether the author named it (messages quote a given name). */
  readonly named: boolean;
  readonly methods?: ReadonlySet<string>;
  readonly tools?: ReadonlySet<string>;
}

/** The plugin's options, checked. */
export interface CheckedOptions {
  readonly rules: readonly CheckedRule[];
  readonly items: PerItem<ResolvedLimit & { readonly group?: string }>;
  readonly perAddress?: ResolvedLimit;
  readonly trustProxies: readonly string[];
  readonly store?: RateLimitStore;
  readonly onStoreError: 'allow' | 'refuse';
  readonly quota: boolean;
  /** The limit each group of the options counts by. */
  readonly groups: ReadonlyMap<string, ResolvedLimit>;
}

function stringList(where: string, value: unknown): ReadonlySet<string> {
  if (!Array.isArray(value) || value.length === 0) throw new TypeError(`${where} must be a non-empty array of names, got ${describe(value)}`);
  value.forEach((entry, i) => checkName(`${where}[${i}]`, entry));
  return new Set(value as string[]);
}

/** Checks the plugin's options, naming the option at fault. */
export function checkOptions(where: string, options: unknown): CheckedOptions {
  if (options === undefined) options = {};
  if (!isRecord(options)) throw new TypeError(`${where}: the options must be an object, got ${describe(options)}`);
  checkKeys(where, options, OPTION_KEYS);
  const { limits = [], perAddress, trustProxies = [], store, onStoreError = 'allow', quota = false } = options;

  if (!Array.isArray(limits)) throw new TypeError(`${where}: limits must be an array of rules, got ${describe(limits)}`);
  const names = new Set<string>();
  const rules = limits.map((rule: unknown, i): CheckedRule => {
    const at = `${where}: limits[${i}]`;
    const resolved = checkLimit(at, rule, RULE_KEYS);
    const { methods, tools, name } = rule as RateLimitRule;
    if (methods !== undefined && tools !== undefined) throw new DefinitionError('INVALID_OPTION', `${at}: give methods or tools, not both (tools counts their tools/call requests)`);
    const ruleName = name === undefined ? `limits[${i}]` : checkName(`${at}.name`, name);
    if (names.has(ruleName)) throw new DefinitionError('DUPLICATE_NAME', `${at}: another rule is named "${ruleName}"; rule names key their counts and must differ`);
    names.add(ruleName);
    return {
      ...resolved,
      name: ruleName,
      named: name !== undefined,
      ...(methods === undefined ? {} : { methods: stringList(`${at}.methods`, methods) }),
      ...(tools === undefined ? {} : { tools: stringList(`${at}.tools`, tools) }),
    };
  });

  const groups = new Map<string, ResolvedLimit>();
  const items: Record<string, Record<string, ResolvedLimit & { group?: string }>> = {};
  for (const kind of ['tools', 'prompts', 'resources'] as const) {
    const record = options[kind];
    if (record === undefined) continue;
    if (!isRecord(record)) throw new TypeError(`${where}: ${kind} must be an object of limits by name, got ${describe(record)}`);
    const checked: Record<string, ResolvedLimit & { group?: string }> = Object.create(null);
    for (const [name, value] of Object.entries(record)) {
      const at = `${where}: ${kind}[${JSON.stringify(name)}]`;
      const item = checkItemLimit(at, value);
      if (item.group !== undefined) {
        const other = groups.get(item.group);
        if (other !== undefined && !sameLimit(other, item)) {
          throw new DefinitionError('INVALID_OPTION', `${at}: the group "${item.group}" is already limited to ${other.limit} per ${other.windowMs} ms (${other.per}, ${other.algorithm}); items of one group share one count and one limit`);
        }
        groups.set(item.group, item);
      }
      checked[name] = item;
    }
    items[kind] = checked;
  }

  const address = perAddress === undefined ? undefined : checkLimit(`${where}: perAddress`, perAddress, ADDRESS_KEYS);
  if (!Array.isArray(trustProxies)) throw new TypeError(`${where}: trustProxies must be an array of addresses, CIDR ranges or "loopback"/"private"/"uniquelocal", got ${describe(trustProxies)}`);
  if (store !== undefined && (!isRecord(store) || typeof store.take !== 'function')) throw new TypeError(`${where}: store must be a RateLimitStore (an object with take(key, rule)), got ${describe(store)}`);
  if (onStoreError !== 'allow' && onStoreError !== 'refuse') throw new TypeError(`${where}: onStoreError must be "allow" or "refuse", got ${describe(onStoreError)}`);
  if (typeof quota !== 'boolean') throw new TypeError(`${where}: quota must be true or false, got ${describe(quota)}`);
  return {
    rules,
    items,
    ...(address === undefined ? {} : { perAddress: address }),
    trustProxies: trustProxies as string[],
    ...(store === undefined ? {} : { store: store as unknown as RateLimitStore }),
    onStoreError,
    quota,
    groups,
  };
}

/** Whether two limits count alike. */
export function sameLimit(a: ResolvedLimit, b: ResolvedLimit): boolean {
  return a.limit === b.limit && a.windowMs === b.windowMs && a.per === b.per && a.algorithm === b.algorithm;
}
