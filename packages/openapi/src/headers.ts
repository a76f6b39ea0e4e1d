import { ToolError } from '@typemcp/core';
import type { Context } from '@typemcp/core';
import type { OpenApiHeaders, OpenApiOperation } from './options';

/**
 * The operator's headers for one call, over the request's own: the MCP request's headers
 * (its Authorization above all) never reach the API unless this function returns them.
 */
export async function withCallerHeaders(headers: OpenApiHeaders | undefined, ctx: Context, operation: OpenApiOperation, request: Record<string, string>): Promise<Record<string, string>> {
  if (headers === undefined) return request;
  const given = typeof headers === 'function' ? await headers(ctx, operation) : headers;
  if (given === undefined || given === null) return request;
  if (typeof given !== 'object') throw new ToolError(`the headers option gave ${typeof given} for ${operation.name}, not an object of header values`);
  const merged: Record<string, string> = {};
  const overridden = new Set(Object.keys(given).map((name) => name.toLowerCase()));
  for (const [name, value] of Object.entries(request)) if (!overridden.has(name.toLowerCase())) merged[name] = value;
  for (const [name, value] of Object.entries(given)) if (value !== undefined) merged[name] = String(value);
  return merged;
}
