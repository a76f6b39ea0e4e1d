import { metadataStore } from '../metadata';
import type { AccessDeclaration, Constructor } from '../metadata';
import { legacyOnly } from './legacyOnly';

/** A decorator for a provider class (all its tools, resources, prompts, completions) or one method. */
export function accessDecorator(name: string, rule: Omit<AccessDeclaration, 'target' | 'methodName'>): ClassDecorator & MethodDecorator {
  return legacyOnly(name, (target: object, methodName?: string | symbol) => {
    const isClass = methodName === undefined;
    metadataStore.addAccess({
      target: (isClass ? target : target.constructor) as Constructor,
      ...(isClass ? {} : { methodName: String(methodName) }),
      ...rule,
    });
  }) as ClassDecorator & MethodDecorator;
}

/** RFC 6749 §3.3 scope-token: printable ASCII but space, `"` and `\`; what a challenge header can carry. */
const NAME = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/** Checks the names given to `@Scopes` or `@Roles`. */
export function checkNames(decorator: string, kind: string, names: readonly unknown[]): string[] {
  if (names.length === 0) throw new TypeError(`@${decorator}: name at least one ${kind}`);
  names.forEach((name, i) => {
    if (typeof name !== 'string' || !NAME.test(name)) {
      throw new TypeError(`@${decorator}: ${kind} #${i} must be printable ASCII without spaces, quotes or backslashes (an OAuth scope token), not ${JSON.stringify(name)}`);
    }
  });
  return names as string[];
}
