import { legacyOnly } from './legacyOnly';
import 'reflect-metadata';
import { DESIGN_PARAM_TYPES } from '../constants';
import { metadataStore } from '../metadata';
import type { Constructor, ToolOptions } from '../metadata';

/**
 * Declares a provider method as an MCP tool. `@Tool()`, `@Tool('description')` and
 * `@Tool({ ... })` are all accepted.
 */
export function Tool(descriptionOrOptions?: string | ToolOptions): MethodDecorator {
  const options: ToolOptions =
    typeof descriptionOrOptions === 'string' ? { description: descriptionOrOptions } : { ...descriptionOrOptions };
  return legacyOnly<MethodDecorator>('Tool', (prototype, methodName) => {
    metadataStore.add({
      kind: 'tool',
      target: prototype.constructor as Constructor,
      methodName: String(methodName),
      options,
      paramTypes: Reflect.getMetadata(DESIGN_PARAM_TYPES, prototype, methodName),
    });
  });
}
