import { RequestTimeoutError } from '@typemcp/core';
import type { Context, Interceptor, Plugin, ServedItem } from '@typemcp/core';
import { declareGuard, itemSettings } from '../items';
import type { PerItem } from '../items';

const KEY = 'guards:timeout';

/** The most setTimeout can wait (about 24.8 days); a longer delay would fire at once. */
const MAX_DELAY = 2_147_483_647;

/**
 * Options of `timeouts`: a time limit for every tool, resource and prompt (`defaultMs`), and
 * limits of their own for some (`tools` by name, `resources` by uri or template, `prompts` by
 * name), in milliseconds; options win over `@Timeout`, which wins over `defaultMs`.
 */
export interface TimeoutOptions extends PerItem<number> {
  /** The time limit of every item without one of its own; none when left out. */
  readonly defaultMs?: number;
}

/**
 * Gives `tools/call`, `resources/read` and `prompts/get` a time limit. When it passes, the
 * request's `ctx.signal` is aborted (with a RequestTimeoutError as its reason) and the client is
 * answered at once: a tool with a tool error (`Tool "x" did not finish within N ms`), a
 * resource or prompt with a RequestTimeoutError (-32001). What the handler returns later is
 * dropped. A call handed over to a task (`ctx.continueAsTask()`, a task-augmented call) is
 * limited until the task is created, not the task's own run.
 */
export const timeouts: Plugin<TimeoutOptions> = {
  name: KEY,
  register(host, options) {
    const checked = checkOptions(options ?? {});
    // An interceptor: a handler that answers synchronously had nothing to interrupt, so it gets
    // no timer at all; only a promise is raced against the time limit.
    const limitTime: Interceptor = (ctx, next) => {
      const found = itemSettings<number>(host, KEY, checked, ctx.method, ctx.params);
      const ms = found?.settings ?? (found === undefined ? undefined : checked.defaultMs);
      if (ms === undefined) return next();
      const context = ctx.context;
      // Watched before the handler starts: it may ask for a hand-off before its first await.
      const watch = new HandOffWatch(context);
      let work: unknown;
      try {
        work = next();
      } catch (error) {
        watch.stop();
        throw error;
      }
      if (!(work instanceof Promise)) {
        watch.stop();
        return work;
      }
      return withinTime(found!.item, ms, context, work, watch);
    };
    host.intercept(limitTime);
  },
};

/** Declares this method's time limit in milliseconds; plugin options for the same item win. */
export function Timeout(ms: number): MethodDecorator {
  checkMs(ms, '@Timeout(ms)');
  return declareGuard(KEY, ms);
}

const TIMED_OUT: unique symbol = Symbol('timed out');

async function withinTime(item: ServedItem, ms: number, context: Context, work: Promise<unknown>, watch: HandOffWatch): Promise<unknown> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => {
      // A hand-off to a task under way when time runs out: the call ends with the task if it is created.
      const pending = watch.pending;
      if (pending === undefined) return resolve(TIMED_OUT);
      pending.then(afterHandOff, afterHandOff);
      function afterHandOff() {
        // The created task reaches `work` a few microtasks later; a macrotask lets it win the race.
        setTimeout(() => resolve(TIMED_OUT), 0);
      }
    }, ms);
    // The request holds the process, not its time limit: a call whose handler never ends keeps no server alive after close.
    (timer as { unref?: () => void }).unref?.();
  });
  let outcome: unknown;
  try {
    outcome = await Promise.race([work, deadline]);
  } catch (error) {
    clearTimeout(timer);
    watch.stop();
    throw error;
  }
  clearTimeout(timer);
  if (outcome !== TIMED_OUT) {
    watch.stop();
    return outcome;
  }
  // `work` is raced above, so its late rejection is handled; its late result is dropped here.
  const what = `${item.kind === 'tool' ? 'Tool' : item.kind === 'resource' ? 'Resource' : 'Prompt'} "${item.name}" did not finish within ${ms} ms`;
  watch.timedOut(what);
  context.cancel(new RequestTimeoutError(what, { timeoutMs: ms }));
  if (item.kind === 'tool') return { content: [{ type: 'text', text: what }], isError: true };
  throw new RequestTimeoutError(what, { timeoutMs: ms });
}

/**
 * Watches the request's `ctx.continueAsTask()`: a hand-off under way, and none after the time
 * limit. The same object is the handler's Context, so its calls come through the wrapper put on it.
 */
class HandOffWatch {
  /** The hand-off under way, if the method asked for one and it has not settled. */
  pending: Promise<void> | undefined;
  /** Set when the call ended as its time ran out: a later `continueAsTask()` creates no task nobody would hear of. */
  private expired: string | undefined;
  private readonly own: boolean;
  private readonly original: Context['continueAsTask'];

  constructor(private readonly context: Context) {
    this.own = Object.prototype.hasOwnProperty.call(context, 'continueAsTask');
    this.original = context.continueAsTask;
    const watch = this;
    context.continueAsTask = function continueAsTask(this: Context) {
      return watch.handOff(this);
    };
  }

  /** The call ended when its time ran out. */
  timedOut(message: string): void {
    this.expired = message;
  }

  /** The call ended in time (or failed): `continueAsTask()` is the Context's own again. */
  stop(): void {
    if (this.own) this.context.continueAsTask = this.original;
    else delete (this.context as Partial<Context>).continueAsTask;
  }

  private handOff(context: Context): Promise<void> {
    if (this.expired !== undefined) return Promise.reject(new RequestTimeoutError(`${this.expired}: the call was answered, no task is created`));
    const handOff = this.original.call(context);
    const settled: Promise<void> = handOff.then(
      () => void (this.pending = this.pending === settled ? undefined : this.pending),
      () => void (this.pending = this.pending === settled ? undefined : this.pending),
    );
    this.pending = settled;
    return handOff;
  }
}

function checkOptions(options: TimeoutOptions): TimeoutOptions {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) throw new TypeError('timeouts: options must be an object');
  for (const key of Object.keys(options)) {
    if (!['defaultMs', 'tools', 'resources', 'prompts'].includes(key)) throw new TypeError(`timeouts: unknown option "${key}" (known: defaultMs, tools, resources, prompts)`);
  }
  if (options.defaultMs !== undefined) checkMs(options.defaultMs, 'timeouts: defaultMs');
  for (const kind of ['tools', 'resources', 'prompts'] as const) {
    const byName = options[kind];
    if (byName === undefined) continue;
    if (typeof byName !== 'object' || byName === null || Array.isArray(byName)) throw new TypeError(`timeouts: ${kind} must be an object of milliseconds by name`);
    for (const [name, ms] of Object.entries(byName)) checkMs(ms, `timeouts: ${kind}[${JSON.stringify(name)}]`);
  }
  return options;
}

function checkMs(value: unknown, where: string): void {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0 || value > MAX_DELAY) {
    throw new TypeError(`${where} must be a whole number of milliseconds from 1 to ${MAX_DELAY}, not ${String(value)}`);
  }
}
