import { legacyOnly } from './legacyOnly';
import { metadataStore } from '../metadata';
import type { CompletionOptions, Constructor } from '../metadata';

/**
 * Declares a method that suggests values for a prompt argument or a resource-template
 * variable. It is called as `method(value, { arguments }, ctx)` and returns `string[]` or
 * `{ values, total?, hasMore? }`; the runtime caps the answer at 100 values.
 */
export function Completion(options: CompletionOptions): MethodDecorator {
  return legacyOnly<MethodDecorator>('Completion', (prototype, methodName) => {
    metadataStore.add({
      kind: 'completion',
      target: prototype.constructor as Constructor,
      methodName: String(methodName),
      options: { ...options },
    });
  });
}
