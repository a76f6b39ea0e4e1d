import { legacyOnly } from './legacyOnly';
import { metadataStore } from '../metadata';
import type { Constructor } from '../metadata';

/** Describes a DTO property; the text becomes `description` in the generated JSON Schema. */
export function Description(text: string): PropertyDecorator {
  return legacyOnly<PropertyDecorator>('Description', (prototype, propertyName) => {
    metadataStore.addDescription({
      target: prototype.constructor as Constructor,
      propertyName: String(propertyName),
      description: text,
    });
  });
}
