import { DefinitionError } from '../errors';
import type { Context } from './Context';
import type { MethodHandler } from './FeatureHost';
import { checkMiddlewares, compose } from './middleware';
import type { ComposedMiddleware, Middleware } from './middleware';

/**
 * Routes a request's method to its handler and runs it inside the server's middleware. With
 * no middleware the handler is called directly, so a synchronous handler answers synchronously.
 */
export class Dispatcher {
  private readonly routes = new Map<string, MethodHandler>();
  private readonly middlewares: Middleware[] = [];
  private chain: ComposedMiddleware | undefined;

  route(method: string, handler: MethodHandler): void {
    if (this.routes.has(method)) throw new DefinitionError('DUPLICATE_NAME', `The method "${method}" already has a handler`);
    this.routes.set(method, handler);
  }

  handlerFor(method: string): MethodHandler | undefined {
    return this.routes.get(method);
  }

  use(middlewares: readonly Middleware[]): void {
    this.middlewares.push(...checkMiddlewares(middlewares, 'McpServer.use'));
    this.chain = compose(this.middlewares);
  }

  dispatch(handler: MethodHandler, method: string, params: Record<string, unknown>, context: Context): ReturnType<MethodHandler> {
    if (!this.chain) return handler(params, context);
    return this.chain({ method, params, context }, () => handler(params, context)) as Promise<Record<string, unknown>>;
  }
}
