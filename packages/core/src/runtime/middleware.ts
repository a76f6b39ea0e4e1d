import type { Constructor } from '../metadata';
import type { Context } from './Context';

/** The author code a middleware around an author call wraps. */
export interface InvocationTarget {
  readonly kind: 'tool' | 'resource' | 'prompt' | 'completion' | 'skill';
  /** The tool or prompt name, the resource uri or template, the completed argument. */
  readonly name: string;
  readonly provider: Constructor;
  readonly methodName: string;
}

/** What a middleware sees of the request it wraps. */
export interface MiddlewareContext {
  /** The JSON-RPC method, e.g. `tools/call`. */
  readonly method: string;
  /** The request's params as the client sent them. */
  readonly params: Readonly<Record<string, unknown>>;
  /** The request's Context: signal, log, progress, client info, … */
  readonly context: Context;
  /** Around an author call (`@UseMiddleware`): what runs. Absent around a whole request (`server.use`). */
  readonly target?: InvocationTarget;
  /** Around an author call: the arguments the method receives (the validated input, the Context, …). */
  readonly args?: readonly unknown[];
}

/**
 * Runs around a request (`server.use`) or around author code (`@UseMiddleware`). Call `next()`
 * at most once to run what it wraps and get its result; return a value to answer instead.
 */
export type Middleware = (ctx: MiddlewareContext, next: () => Promise<unknown>) => unknown;

/**
 * Runs around a request as a middleware does, for plugins on hot paths (`host.intercept`):
 * `next()` answers as the handler does, a value when it is synchronous and a promise when it is
 * not, and the interceptor returns a value or a promise the same way. A request whose
 * interceptors and handler all answer synchronously stays synchronous, as with no middleware at
 * all; handle both (`const result = next(); return result instanceof Promise ? result.then(f) : f(result)`).
 */
export type Interceptor = (ctx: MiddlewareContext, next: () => unknown) => unknown;

/** A chain of interceptors around a terminal step: what each returns goes back as it is. */
export type ComposedInterceptors = (ctx: MiddlewareContext, terminal: () => unknown) => unknown;

/** Onion order, as `compose`, without making anything asynchronous. */
export function composeInterceptors(interceptors: readonly Interceptor[]): ComposedInterceptors {
  const chain = [...interceptors];
  return (ctx, terminal) => {
    let reached = -1;
    const step = (index: number): unknown => {
      if (index <= reached) throw new Error(`next() was called twice by interceptor #${index} (${chain[index - 1]?.name || 'anonymous'}) for ${ctx.method}`);
      reached = index;
      return index === chain.length ? terminal() : chain[index](ctx, () => step(index + 1));
    };
    return step(0);
  };
}

/** A chain of middleware, ready to run around a terminal step. */
export type ComposedMiddleware = (ctx: MiddlewareContext, terminal: () => unknown) => Promise<unknown>;

/** Onion order: the first middleware is outermost; each `next()` runs the rest of the chain. */
export function compose(middlewares: readonly Middleware[]): ComposedMiddleware {
  const chain = [...middlewares];
  return (ctx, terminal) => {
    let reached = -1;
    const step = (index: number): Promise<unknown> => {
      if (index <= reached) {
        return Promise.reject(new Error(`next() was called twice by middleware #${index} (${chain[index - 1]?.name || 'anonymous'}) for ${ctx.method}`));
      }
      reached = index;
      try {
        return Promise.resolve(index === chain.length ? terminal() : chain[index](ctx, () => step(index + 1)));
      } catch (error) {
        return Promise.reject(error);
      }
    };
    return step(0);
  };
}

/** Checks what `use()` or `@UseMiddleware()` was given, naming where. */
export function checkMiddlewares(middlewares: readonly unknown[], where: string): Middleware[] {
  middlewares.forEach((m, i) => {
    if (typeof m !== 'function') throw new TypeError(`${where}: middleware #${i} is ${m === null ? 'null' : typeof m}, not a function (ctx, next) => …`);
  });
  return middlewares as Middleware[];
}
