import { DefinitionError } from '../errors';
import { metadataStore } from '../metadata';
import type { Constructor } from '../metadata';
import { HEADER_TOKEN_CHARACTERS, isHeaderToken } from '../protocol';
import { legacyOnly } from './legacyOnly';


/**
 * Mirrors a tool argument in the `Mcp-Param-<name>` HTTP header of 2026-07-28 requests
 * (`x-mcp-header` in the input schema), so gateways can route on it without reading the body.
 * Only for string, integer and boolean properties reachable through `properties` alone; the
 * server checks that the header matches the argument (-32020 otherwise).
 */
export function McpHeader(name: string): PropertyDecorator {
  if (!isHeaderToken(name)) {
    throw new DefinitionError('INVALID_OPTION', `@McpHeader(${JSON.stringify(name)}): the name must be a non-empty HTTP header token (${HEADER_TOKEN_CHARACTERS})`);
  }
  return legacyOnly<PropertyDecorator>('McpHeader', (prototype, propertyName) => {
    metadataStore.addMcpHeader({ target: prototype.constructor as Constructor, propertyName: String(propertyName), header: name });
  });
}
