import { DefinitionError } from '../errors';

/**
 * Wraps a legacy (experimentalDecorators) decorator so that applying it as a standard TC39
 * decorator, whose second argument is a context object, fails with the compiler settings to
 * change instead of a crash deep inside.
 */
export function legacyOnly<D extends (...args: never[]) => unknown>(decoratorName: string, decorator: D): D {
  const apply = decorator as unknown as (...args: unknown[]) => unknown;
  return ((...args: unknown[]) => {
    const context = args[1];
    if (typeof context === 'object' && context !== null && 'kind' in context) {
      const member = (context as { name?: unknown }).name;
      throw new DefinitionError(
        'EXPERIMENTAL_DECORATORS_REQUIRED',
        `@${decoratorName}${member === undefined ? '' : ` on ${String(member)}`} was applied as a standard (TC39) decorator, which TypeMCP, ` +
          'class-validator and tsyringe do not support: set "experimentalDecorators": true and "emitDecoratorMetadata": true in tsconfig.json ' +
          '(with swc: jsc.transform.legacyDecorator and decoratorMetadata)',
      );
    }
    return apply(...args);
  }) as unknown as D;
}
