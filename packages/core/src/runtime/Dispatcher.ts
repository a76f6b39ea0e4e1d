import { DefinitionError } from '../errors';
import type { DefinitionErrorCode } from '../errors';
import type { EraName } from '../protocol';
import type { RequestScope } from '../session';
import type { Context } from './Context';
import { checkMiddlewares, compose, composeInterceptors } from './middleware';
import type { ComposedInterceptors, ComposedMiddleware, Interceptor, Middleware } from './middleware';

/** A JSON-RPC method implementation: params in, result object out. */
export type MethodHandler = (params: Record<string, unknown>, ctx: Context) => Record<string, unknown> | Promise<Record<string, unknown>>;

/** A client notification's handler: its params, and the scope of the client that sent it. */
export type NotificationHandler = (params: Record<string, unknown>, scope: RequestScope) => void | Promise<void>;

/** A routed request method: its handler, and the eras it exists in (every era when left out). */
export interface Route {
  readonly handler: MethodHandler;
  readonly eras?: readonly EraName[];
}

/** Methods the connection itself handles (the handshake and its lifecycle); no route may take them. */
const LIFECYCLE_METHODS: ReadonlySet<string> = new Set(['initialize', 'notifications/initialized', 'notifications/cancelled']);

/**
 * Routes a request's method to its handler and runs it inside the server's middleware. With
 * no middleware the handler is called directly, so a synchronous handler answers synchronously.
 * Client notifications have routes of their own; middleware does not wrap them.
 */
export class Dispatcher {
  private readonly routes = new Map<string, Route>();
  private readonly notificationRoutes = new Map<string, NotificationHandler>();
  private readonly middlewares: Middleware[] = [];
  private chain: ComposedMiddleware | undefined;
  private readonly interceptors: Interceptor[] = [];
  private around: ComposedInterceptors | undefined;

  /** Why `method` cannot get a handler (taken, or handled by the lifecycle), or undefined when it can. */
  refusal(method: string, kind: 'request' | 'notification'): { code: DefinitionErrorCode; message: string } | undefined {
    if (LIFECYCLE_METHODS.has(method)) {
      return { code: 'INVALID_OPTION', message: `"${method}" belongs to the protocol lifecycle, which the connection handles itself; it cannot be routed` };
    }
    const taken = kind === 'request' ? this.routes.has(method) : this.notificationRoutes.has(method);
    return taken ? { code: 'DUPLICATE_NAME', message: `the ${kind === 'request' ? 'method' : 'notification'} "${method}" already has a handler` } : undefined;
  }

  route(method: string, handler: MethodHandler, eras?: readonly EraName[]): void {
    const refused = this.refusal(method, 'request');
    if (refused) throw new DefinitionError(refused.code, `Dispatcher: ${refused.message}`);
    this.routes.set(method, eras === undefined ? { handler } : { handler, eras });
  }

  onNotification(method: string, handler: NotificationHandler): void {
    const refused = this.refusal(method, 'notification');
    if (refused) throw new DefinitionError(refused.code, `Dispatcher: ${refused.message}`);
    this.notificationRoutes.set(method, handler);
  }

  routeOf(method: string): Route | undefined {
    return this.routes.get(method);
  }

  notificationHandlerFor(method: string): NotificationHandler | undefined {
    return this.notificationRoutes.get(method);
  }

  /** Adds middleware, and interceptors (plugins'), which run outside every middleware. */
  use(middlewares: readonly Middleware[], interceptors: readonly Interceptor[] = []): void {
    if (middlewares.length > 0) {
      this.middlewares.push(...checkMiddlewares(middlewares, 'McpServer.use'));
      this.chain = compose(this.middlewares);
    }
    if (interceptors.length > 0) {
      this.interceptors.push(...interceptors);
      this.around = composeInterceptors(this.interceptors);
    }
  }

  dispatch(handler: MethodHandler, method: string, params: Record<string, unknown>, context: Context): ReturnType<MethodHandler> {
    const chain = this.chain;
    if (!this.around) return chain ? (chain({ method, params, context }, () => handler(params, context)) as Promise<Record<string, unknown>>) : handler(params, context);
    const ctx = { method, params, context };
    return this.around(ctx, chain ? () => chain(ctx, () => handler(params, context)) : () => handler(params, context)) as ReturnType<MethodHandler>;
  }

  /** Runs a notification's handler, if one is routed; a failure goes to `report` (a notification has no answer). */
  notify(method: string, params: Record<string, unknown>, scope: RequestScope, report: (what: string, error: unknown) => void): void {
    const handler = this.notificationRoutes.get(method);
    if (!handler) return;
    const failed = (error: unknown) => report(`notification "${method}" failed`, error);
    try {
      const done = handler(params, scope);
      if (done instanceof Promise) done.catch(failed);
    } catch (error) {
      failed(error);
    }
  }
}
