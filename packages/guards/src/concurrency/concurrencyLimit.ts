import { RateLimitedError } from '@typemcp/core';
import type { Interceptor, Plugin, ServedItem } from '@typemcp/core';
import { callerOf, ClientAddresses } from '../callers';
import { declareGuard, itemSettings } from '../items';
import type { PerItem } from '../items';
import { Gate } from './Gate';
import type { ConcurrencySettings, GateRefusal } from './Gate';

const KEY = 'guards:concurrency';

/** The hint a refused call gets in `data.retryAfterMs`: slots free as calls end, so soon is as good as any. */
export const CONCURRENCY_RETRY_AFTER_MS = 1000;

/**
 * Options of `concurrencyLimit`: limits of their own for some items (`tools` by name,
 * `resources` by uri or template, `prompts` by name), which win over `@ConcurrencyLimit`,
 * which wins over `default` (a limit each other item gets for itself).
 */
export interface ConcurrencyOptions extends PerItem<ConcurrencySettings> {
  /** The limit of every tool, resource and prompt without one of its own, each counted apart; none when left out. */
  readonly default?: ConcurrencySettings;
  /** The proxies whose `Forwarded`/`X-Forwarded-For` name the client, for `perCaller` (see `ClientAddresses`); default none. */
  readonly trustProxies?: readonly string[];
}

/**
 * Limits how many calls of one tool, resource or prompt run at once on this replica, in all
 * and per caller (`callerOf`: its principal, else its address), with a bounded queue in arrival
 * order. A call with no slot and no room in the queue is refused at once with RateLimitedError
 * (-32023, `data.retryAfterMs`, 429 over HTTP); a waiting call whose request is cancelled leaves
 * the queue. A slot is given back when the call ends, however it ends.
 */
export const concurrencyLimit: Plugin<ConcurrencyOptions> = {
  name: KEY,
  register(host, options) {
    const checked = checkOptions(options ?? {});
    const addresses = checked.trustProxies === undefined || checked.trustProxies.length === 0 ? undefined : new ClientAddresses(checked.trustProxies);
    // One gate per item, kept while the item is served: bounded by the items (and templates) the server serves.
    const gates = { tool: new Map<string, Gate>(), prompt: new Map<string, Gate>(), resource: new Map<string, Gate>() };
    const gateOf = (item: ServedItem, settings: ConcurrencySettings): Gate => {
      const byName = gates[item.kind];
      const name = gateName(item, checked);
      let gate = byName.get(name);
      // An item whose limit changed (served anew) gets a new gate once the old one is idle.
      if (gate === undefined || (gate.settings !== settings && gate.idle)) {
        if (byName.size >= MAX_GATES) sweep(byName);
        byName.set(name, (gate = new Gate(settings)));
      }
      return gate;
    };
    // An interceptor: a call that gets a slot at once and answers synchronously stays
    // synchronous, its slot given back as it returns.
    const limitConcurrency: Interceptor = (ctx, next) => {
      const found = itemSettings<ConcurrencySettings>(host, KEY, checked, ctx.method, ctx.params);
      const settings = found?.settings ?? (found === undefined ? undefined : checked.default);
      if (settings === undefined) return next();
      const item = found!.item;
      const gate = gateOf(item, settings);
      // The caller is only told apart when its own calls are limited.
      const caller = gate.settings.perCaller === undefined ? '' : callerOf(ctx.context, addresses).key;
      const entered = gate.enter(caller, ctx.context);
      if (entered === true) return run(gate, caller, next);
      if (!(entered instanceof Promise)) throw refusal(item, gate.settings, entered);
      return entered.then(() => run(gate, caller, next));
    };
    host.intercept(limitConcurrency);
  },
};

/** The most gates of one kind kept: past it, idle ones are forgotten (items served and gone). */
const MAX_GATES = 1024;

function sweep(gates: Map<string, Gate>): void {
  for (const [name, gate] of gates) if (gate.idle) gates.delete(name);
}

/** Runs what a slot was taken for, giving the slot back when it ends: at once when it answers synchronously. */
function run(gate: Gate, caller: string, next: () => unknown): unknown {
  let result: unknown;
  try {
    result = next();
  } catch (error) {
    gate.leave(caller);
    throw error;
  }
  if (!(result instanceof Promise)) {
    gate.leave(caller);
    return result;
  }
  return result.then(
    (value: unknown) => {
      gate.leave(caller);
      return value;
    },
    (error: unknown) => {
      gate.leave(caller);
      throw error;
    },
  );
}

/** Declares this method's concurrency limit; plugin options for the same item win. */
export function ConcurrencyLimit(settings: ConcurrencySettings): MethodDecorator {
  checkSettings(settings, '@ConcurrencyLimit');
  return declareGuard(KEY, { ...settings });
}

/** The name an item's gate goes by: a resource read through a template shares the template's, unless its uri has options of its own. */
function gateName(item: ServedItem, options: ConcurrencyOptions): string {
  if (item.kind !== 'resource') return item.name;
  const own = options.resources !== undefined && Object.prototype.hasOwnProperty.call(options.resources, item.name);
  return own ? item.name : item.target.name;
}

function refusal(item: ServedItem, settings: ConcurrencySettings, counts: GateRefusal): RateLimitedError {
  const what = `${item.kind === 'tool' ? 'Tool' : item.kind === 'resource' ? 'Resource' : 'Prompt'} "${item.name}"`;
  const queue = settings.queue ?? 0;
  const mine = counts.callerRunning === undefined ? '' : `this caller has ${counts.callerRunning} running (at most ${settings.perCaller}); `;
  return new RateLimitedError(
    `${what} is busy: ${mine}${counts.running} running (at most ${settings.max}), ${counts.waiting} waiting (at most ${queue}); try again shortly`,
    CONCURRENCY_RETRY_AFTER_MS,
  );
}

const OPTION_KEYS = new Set(['tools', 'resources', 'prompts', 'default', 'trustProxies']);

function checkOptions(options: ConcurrencyOptions): ConcurrencyOptions {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) throw new TypeError('concurrencyLimit: options must be an object');
  for (const key of Object.keys(options)) {
    if (!OPTION_KEYS.has(key)) throw new TypeError(`concurrencyLimit: unknown option "${key}" (known: ${[...OPTION_KEYS].join(', ')})`);
  }
  if (options.default !== undefined) checkSettings(options.default, 'concurrencyLimit: default');
  for (const kind of ['tools', 'resources', 'prompts'] as const) {
    const byName = options[kind];
    if (byName === undefined) continue;
    if (typeof byName !== 'object' || byName === null || Array.isArray(byName)) throw new TypeError(`concurrencyLimit: ${kind} must be an object of limits by name`);
    for (const [name, settings] of Object.entries(byName)) checkSettings(settings, `concurrencyLimit: ${kind}[${JSON.stringify(name)}]`);
  }
  if (options.trustProxies !== undefined) {
    if (!Array.isArray(options.trustProxies)) throw new TypeError('concurrencyLimit: trustProxies must be an array of addresses, CIDR ranges or "loopback"/"private"/"uniquelocal"');
    new ClientAddresses(options.trustProxies); // throws, naming the entry it cannot read
  }
  return options;
}

function checkSettings(settings: ConcurrencySettings, where: string): void {
  if (typeof settings !== 'object' || settings === null) throw new TypeError(`${where} must be { max, perCaller?, queue? }`);
  for (const key of Object.keys(settings)) {
    if (key !== 'max' && key !== 'perCaller' && key !== 'queue') throw new TypeError(`${where}: unknown setting "${key}" (known: max, perCaller, queue)`);
  }
  if (!isCount(settings.max, 1)) throw new TypeError(`${where}.max must be a whole number from 1, not ${String(settings.max)}`);
  if (settings.perCaller !== undefined && !isCount(settings.perCaller, 1)) throw new TypeError(`${where}.perCaller must be a whole number from 1, not ${String(settings.perCaller)}`);
  if (settings.queue !== undefined && !isCount(settings.queue, 0)) throw new TypeError(`${where}.queue must be a whole number from 0, not ${String(settings.queue)}`);
}

function isCount(value: unknown, least: number): boolean {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= least;
}
