import { legacyOnly } from './legacyOnly';
import { metadataStore } from '../metadata';
import type { Constructor } from '../metadata';

/** Labels a DTO property; the text becomes `title` in elicitation forms. */
export function Title(text: string): PropertyDecorator {
  return legacyOnly<PropertyDecorator>('Title', (prototype, propertyName) => {
    metadataStore.addTitle({
      target: prototype.constructor as Constructor,
      propertyName: String(propertyName),
      title: text,
    });
  });
}
