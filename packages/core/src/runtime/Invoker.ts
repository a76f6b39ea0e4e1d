import type { ProviderResolver } from '../di';
import { metadataStore } from '../metadata';
import type { Constructor } from '../metadata';
import type { Context } from './Context';
import { compose } from './middleware';
import type { ComposedMiddleware, InvocationTarget, Middleware } from './middleware';

/**
 * The one way author code is called: resolve the provider, run its `@UseMiddleware` chain (if
 * any) around the method. Without middleware the method's own return value comes back as is.
 */
export class Invoker {
  /** Per target: its composed `@UseMiddleware` chain, or null for none (found on first call). */
  private readonly chains = new WeakMap<InvocationTarget, ComposedMiddleware | null>();

  constructor(private readonly resolver: ProviderResolver) {}

  invoke(target: InvocationTarget, args: readonly unknown[], context: Context): unknown {
    let chain = this.chains.get(target);
    if (chain === undefined) this.chains.set(target, (chain = this.compose(target.provider, target.methodName)));
    if (chain === null) return this.call(target, args, context);
    return chain({ method: context.method, params: context.requestParams, context, target, args }, () => this.call(target, args, context));
  }

  private call(target: InvocationTarget, args: readonly unknown[], context: Context): unknown {
    const instance = this.resolver.resolve(target.provider, context) as Record<string, (...a: unknown[]) => unknown>;
    return instance[target.methodName](...args);
  }

  private compose(provider: Constructor, methodName: string): ComposedMiddleware | null {
    const middlewares = metadataStore.middlewaresOf<Middleware>(provider, methodName);
    return middlewares.length > 0 ? compose(middlewares) : null;
  }
}
