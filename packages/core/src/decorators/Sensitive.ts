import { legacyOnly } from './legacyOnly';
import { metadataStore } from '../metadata';
import type { Constructor } from '../metadata';

/**
 * Marks a DTO property whose value must never be read back or recorded (a password, a token,
 * a signed URL). Its generated JSON Schema carries `writeOnly: true`, JSON Schema 2020-12's
 * annotation for such values, so anything that sees the tool's `inputSchema` (an audit log, a
 * proxy, a remote server's listing) knows; validation messages about it name the property and
 * the rule but never quote the value, nor anything inside it when it is a nested DTO. It only
 * marks: declare the property with its validators as usual.
 */
export function Sensitive(): PropertyDecorator {
  return legacyOnly<PropertyDecorator>('Sensitive', (prototype, propertyName) => {
    metadataStore.addSensitive({ target: prototype.constructor as Constructor, propertyName: String(propertyName) });
  });
}
