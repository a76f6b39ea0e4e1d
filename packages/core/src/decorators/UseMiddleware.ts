import { legacyOnly } from './legacyOnly';
import { metadataStore } from '../metadata';
import type { Constructor } from '../metadata';
import type { Middleware } from '../runtime/middleware';

/**
 * Runs middleware around the author code of a provider class (every tool, resource, prompt
 * and completion method on it) or of one method. Class-level middleware is outermost; several
 * run in the order written.
 */
export function UseMiddleware(...middlewares: Middleware[]): ClassDecorator & MethodDecorator {
  middlewares.forEach((m, i) => {
    if (typeof m !== 'function') throw new TypeError(`@UseMiddleware: middleware #${i} is ${m === null ? 'null' : typeof m}, not a function (ctx, next) => …`);
  });
  return legacyOnly('UseMiddleware', (target: object, methodName?: string | symbol) => {
    const isClass = methodName === undefined;
    metadataStore.addMiddleware({
      target: (isClass ? target : target.constructor) as Constructor,
      ...(isClass ? {} : { methodName: String(methodName) }),
      middlewares,
    });
  }) as ClassDecorator & MethodDecorator;
}
