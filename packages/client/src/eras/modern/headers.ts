import type { JsonObject } from '../../types';
import { isObject } from '../capabilities';

/** Methods whose target a 2026-07-28 request mirrors in `Mcp-Name`, and the param that holds it. */
const NAMED: Readonly<Record<string, string>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

/** A header name as `x-mcp-header` may give it: visible ASCII token characters, no space or colon. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** The `Mcp-Param-*` headers of a tool: argument name → header suffix. */
export type ParamHeaders = ReadonlyMap<string, string>;

/**
 * The arguments of a tool's input schema marked `x-mcp-header`, or `undefined` when a mark is
 * invalid (empty, not a token, on a type other than string, integer or boolean, or named twice
 * ignoring case): such a tool is left out of the listing, as SEP-2243 asks of clients.
 */
export function paramHeadersOf(inputSchema: unknown): ParamHeaders | undefined {
  const headers = new Map<string, string>();
  const properties = isObject(inputSchema) && isObject(inputSchema.properties) ? inputSchema.properties : {};
  const seen = new Set<string>();
  for (const [name, schema] of Object.entries(properties)) {
    if (!isObject(schema) || !('x-mcp-header' in schema)) continue;
    const header = schema['x-mcp-header'];
    if (typeof header !== 'string' || !TOKEN.test(header)) return undefined;
    if (!['string', 'integer', 'boolean'].includes(schema.type as string)) return undefined;
    if (seen.has(header.toLowerCase())) return undefined;
    seen.add(header.toLowerCase());
    headers.set(name, header);
  }
  return headers;
}

/** The headers that mirror a 2026-07-28 request's body: `Mcp-Method`, `Mcp-Name`, and a tool's `Mcp-Param-*`. */
export function mirroredHeaders(method: string, params: JsonObject | undefined, paramHeaders: ParamHeaders | undefined): Record<string, string> {
  const headers: Record<string, string> = { 'mcp-method': method };
  const field = NAMED[method];
  const target = field === undefined ? undefined : params?.[field];
  if (typeof target === 'string') headers['mcp-name'] = headerValue(target);
  const args = isObject(params?.arguments) ? params.arguments : {};
  for (const [name, header] of paramHeaders ?? []) {
    // Own arguments only: a mark on `toString` or `constructor` must not send what Object.prototype holds.
    const value = Object.hasOwn(args, name) ? args[name] : undefined;
    if (value === undefined || value === null) continue;
    headers[`mcp-param-${header.toLowerCase()}`] = headerValue(typeof value === 'string' ? value : String(value));
  }
  return headers;
}

/** A header value as 2026-07-28 carries it: plain visible ASCII as is, anything else `=?base64?…?=` of its UTF-8. */
export function headerValue(value: string): string {
  if (/^[\x20-\x7e]*$/.test(value) && value.trim() === value && !/^=\?base64\?.*\?=$/i.test(value)) return value;
  let binary = '';
  for (const byte of new TextEncoder().encode(value)) binary += String.fromCharCode(byte);
  return `=?base64?${btoa(binary)}?=`;
}
