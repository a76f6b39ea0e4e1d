import { DefinitionError } from '../errors';
import { HEADER_TOKEN_CHARACTERS, isHeaderToken } from '../protocol';

/** A tool argument mirrored in an `Mcp-Param-<name>` header, and where it sits in the arguments. */
export interface ToolHeaderParam {
  readonly name: string;
  readonly path: readonly string[];
}

const PRIMITIVE = new Set(['string', 'integer', 'boolean']);

/**
 * The `x-mcp-header` annotations of a tool's input schema, checked as 2026-07-28 requires:
 * on string, integer or boolean properties reached through `properties` only, names unique
 * regardless of case. Annotations elsewhere make the tool invalid.
 */
export function headerParamsOf(inputSchema: Record<string, unknown>, where: string): ToolHeaderParam[] {
  const found: ToolHeaderParam[] = [];
  const visit = (schema: unknown, path: string[], reachable: boolean) => {
    if (typeof schema !== 'object' || schema === null) return;
    if (Array.isArray(schema)) return schema.forEach((item) => visit(item, path, false));
    const node = schema as Record<string, unknown>;
    const header = node['x-mcp-header'];
    if (header !== undefined) {
      if (!reachable || path.length === 0) {
        throw new DefinitionError('INVALID_OPTION', `${where}: x-mcp-header is allowed only on properties reached through "properties" alone`);
      }
      if (!isHeaderToken(header)) {
        throw new DefinitionError('INVALID_OPTION', `${where}: x-mcp-header ${JSON.stringify(header)} must be a non-empty HTTP header token (${HEADER_TOKEN_CHARACTERS})`);
      }
      if (!PRIMITIVE.has(node.type as string)) {
        throw new DefinitionError('INVALID_OPTION', `${where}: x-mcp-header "${header}" is on "${path.join('.')}", which is not a string, integer or boolean`);
      }
      if (found.some((p) => p.name.toLowerCase() === header.toLowerCase())) {
        throw new DefinitionError('DUPLICATE_NAME', `${where}: x-mcp-header "${header}" is used twice (names compare regardless of case)`);
      }
      found.push({ name: header, path });
    }
    for (const [key, value] of Object.entries(node)) {
      if (key === 'properties' && typeof value === 'object' && value !== null) {
        for (const [property, child] of Object.entries(value)) visit(child, [...path, property], reachable);
      } else if (key !== 'x-mcp-header') {
        visit(value, path, false);
      }
    }
  };
  visit(inputSchema, [], true);
  return found;
}
