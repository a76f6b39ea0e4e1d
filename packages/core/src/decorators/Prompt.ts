import { legacyOnly } from './legacyOnly';
import 'reflect-metadata';
import { DESIGN_PARAM_TYPES } from '../constants';
import { metadataStore } from '../metadata';
import type { Constructor, PromptOptions } from '../metadata';

/**
 * Declares a provider method as an MCP prompt. Its arguments come from the DTO class of the
 * first parameter (or `args:`). `@Prompt('description')` is accepted too.
 */
export function Prompt(descriptionOrOptions?: string | PromptOptions): MethodDecorator {
  const options: PromptOptions =
    typeof descriptionOrOptions === 'string' ? { description: descriptionOrOptions } : { ...descriptionOrOptions };
  return legacyOnly<MethodDecorator>('Prompt', (prototype, methodName) => {
    metadataStore.add({
      kind: 'prompt',
      target: prototype.constructor as Constructor,
      methodName: String(methodName),
      options,
      paramTypes: Reflect.getMetadata(DESIGN_PARAM_TYPES, prototype, methodName),
    });
  });
}
