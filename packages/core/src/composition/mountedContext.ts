import type { DependencyContainer } from 'tsyringe';
import { Context } from '../runtime/Context';

/**
 * The Context of a request as a mounted server serves it: the same request (its signal,
 * progress, logging, client requests, principal), with that server's container for the
 * providers it resolves and the params in its names.
 */
export function mountedContext(ctx: Context, container: DependencyContainer, params: Readonly<Record<string, unknown>>): Context {
  let requestContainer: DependencyContainer | undefined;
  const mounted: Context = new Proxy(ctx, {
    get(target, property) {
      if (property === 'container') {
        if (!requestContainer) {
          requestContainer = container.createChildContainer();
          requestContainer.register(Context, { useValue: mounted });
        }
        return requestContainer;
      }
      if (property === 'requestParams') return params;
      const value: unknown = Reflect.get(target, property, target);
      // Methods run on the request's own Context: its state is the request's.
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return mounted;
}
