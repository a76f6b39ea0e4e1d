import { legacyOnly } from './legacyOnly';
import { metadataStore } from '../metadata';
import type { Constructor } from '../metadata';

/**
 * Labels the values of a string-enum DTO property (`@IsIn`/`@IsEnum`), keyed by value:
 * `@EnumTitles({ red: 'Red', green: 'Green' })`. Elicitation forms show the labels.
 */
export function EnumTitles(titles: Readonly<Record<string, string>>): PropertyDecorator {
  // Copied so a later change to the caller's object cannot alter the declaration.
  const copy = Object.freeze({ ...titles });
  return legacyOnly<PropertyDecorator>('EnumTitles', (prototype, propertyName) => {
    metadataStore.addEnumTitles({
      target: prototype.constructor as Constructor,
      propertyName: String(propertyName),
      titles: copy,
    });
  });
}
