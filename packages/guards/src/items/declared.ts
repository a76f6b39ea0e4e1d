import type { InvocationTarget } from '@typemcp/core';

/** What the guards' decorators declared: per class, per method, per guard. */
const declared = new WeakMap<object, Map<string, Map<string, unknown>>>();

/**
 * A method decorator that records `value` for one guard (`key`) on the method it decorates; the
 * guard's plugin reads it through `declaredFor` when a request reaches that method's item. It
 * runs nothing itself, and a class without the plugin is served as before.
 */
export function declareGuard(key: string, value: unknown): MethodDecorator {
  return (prototype, methodName) => {
    const provider = (prototype as { constructor: object }).constructor;
    let methods = declared.get(provider);
    if (!methods) declared.set(provider, (methods = new Map()));
    let guards = methods.get(String(methodName));
    if (!guards) methods.set(String(methodName), (guards = new Map()));
    guards.set(key, value);
  };
}

/** What a guard's decorator declared on the author code behind an item, or undefined. Subclasses inherit. */
export function declaredFor<T>(target: InvocationTarget | undefined, key: string): T | undefined {
  if (target === undefined) return undefined;
  for (let provider: object | null = target.provider; provider !== null && provider !== Function.prototype; provider = Object.getPrototypeOf(provider)) {
    const value = declared.get(provider)?.get(target.methodName)?.get(key);
    if (value !== undefined) return value as T;
  }
  return undefined;
}
