import { ERROR_BRANDS } from '../constants';

type ErrorClass = abstract new (...args: never[]) => Error;

/**
 * Makes `instanceof errorClass` recognize errors of that class made by another loaded copy of
 * @typemcp/core: the prototype carries the brand names of its class chain, and the check reads
 * them instead of comparing prototypes.
 */
export function brand(errorClass: ErrorClass, name: string): void {
  const prototype = errorClass.prototype as unknown as Record<symbol, readonly string[] | undefined>;
  Object.defineProperty(prototype, ERROR_BRANDS, { value: [...(prototype[ERROR_BRANDS] ?? []), name] });
  Object.defineProperty(errorClass, Symbol.hasInstance, {
    value: function hasInstance(this: unknown, candidate: unknown): boolean {
      // A subclass declared elsewhere inherits this static method: it gets the ordinary check.
      if (this !== errorClass) return Function.prototype[Symbol.hasInstance].call(this, candidate);
      return typeof candidate === 'object' && candidate !== null && ((candidate as Record<symbol, unknown>)[ERROR_BRANDS] as string[] | undefined)?.includes(name) === true;
    },
  });
}
