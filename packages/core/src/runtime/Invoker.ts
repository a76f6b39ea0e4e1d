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
  /** Per provider and method: the composed chain, or null for none. */
  private readonly chains = new Map<Constructor, Map<string, ComposedMiddleware | null>>();

  constructor(private readonly resolver: ProviderResolver) {}

  invoke(target: InvocationTarget, args: readonly unknown[], context: Context): unknown {
    const call = () => {
      const instance = this.resolver.resolve(target.provider, () => context.container) as Record<string, (...a: unknown[]) => unknown>;
      return instance[target.methodName](...args);
    };
    const chain = this.chainFor(target.provider, target.methodName);
    if (!chain) return call();
    return chain({ method: context.method, params: context.requestParams, context, target, args }, call);
  }

  private chainFor(provider: Constructor, methodName: string): ComposedMiddleware | null {
    let byMethod = this.chains.get(provider);
    if (!byMethod) this.chains.set(provider, (byMethod = new Map()));
    let chain = byMethod.get(methodName);
    if (chain === undefined) {
      const middlewares = metadataStore.middlewaresOf<Middleware>(provider, methodName);
      chain = middlewares.length > 0 ? compose(middlewares) : null;
      byMethod.set(methodName, chain);
    }
    return chain;
  }
}
