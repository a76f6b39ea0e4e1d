import { legacyOnly } from './legacyOnly';
import { metadataStore } from '../metadata';
import type { Constructor, ResourceOptions } from '../metadata';

/**
 * Declares a provider method as an MCP resource. A `{…}` in `uri` makes it a template whose
 * variables reach the method as its first argument: `doc(vars: { id: string }, ctx)`.
 * `@Resource('uri')` is short for `@Resource({ uri })`.
 */
export function Resource(uriOrOptions: string | ResourceOptions): MethodDecorator {
  const options: ResourceOptions = typeof uriOrOptions === 'string' ? { uri: uriOrOptions } : { ...uriOrOptions };
  return legacyOnly<MethodDecorator>('Resource', (prototype, methodName) => {
    metadataStore.add({ kind: 'resource', target: prototype.constructor as Constructor, methodName: String(methodName), options });
  });
}
