import type { Context, RemoteItems, RemotePrompt, RemoteResource, RemoteTemplate, RemoteTool } from '@typemcp/core';
import type { UpstreamSession } from './client/UpstreamSession';

/** The upstream's lists, by the kind of item. */
export type ListKind = 'tools' | 'prompts' | 'resources' | 'resourceTemplates';

/** The list method of each kind, and the capability that says the upstream has it. */
export const LISTS: Readonly<Record<ListKind, { method: string; capability: string }>> = {
  tools: { method: 'tools/list', capability: 'tools' },
  prompts: { method: 'prompts/list', capability: 'prompts' },
  resources: { method: 'resources/list', capability: 'resources' },
  resourceTemplates: { method: 'resources/templates/list', capability: 'resources' },
};

/** The list_changed notifications, and the lists they say changed. */
export const LIST_CHANGED: Readonly<Record<string, readonly ListKind[]>> = {
  'notifications/tools/list_changed': ['tools'],
  'notifications/prompts/list_changed': ['prompts'],
  'notifications/resources/list_changed': ['resources', 'resourceTemplates'],
};

/**
 * Every page of one upstream list. A cursor seen before, or more than `maxPages` pages, ends it
 * with an error instead of a loop that never ends.
 */
export async function listAll(session: UpstreamSession, kind: ListKind, maxPages: number, timeoutMs: number): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < maxPages; page++) {
    const result = await session.request(LISTS[kind].method, cursor === undefined ? undefined : { cursor }, { timeoutMs });
    const listed = result[kind];
    if (Array.isArray(listed)) items.push(...(listed.filter((item) => typeof item === 'object' && item !== null) as Record<string, unknown>[]));
    const next = result.nextCursor;
    if (next === undefined || next === null) return items;
    if (typeof next !== 'string') throw new Error(`${LISTS[kind].method}: the upstream's nextCursor is not a string`);
    if (seen.has(next)) throw new Error(`${LISTS[kind].method}: the upstream returned the cursor ${JSON.stringify(next.slice(0, 60))} twice; its pages would never end`);
    seen.add(next);
    cursor = next;
  }
  throw new Error(`${LISTS[kind].method}: the upstream's list did not end within ${maxPages} pages`);
}

/** How the mirrored items reach the upstream. */
export interface Forwarder {
  forward(method: string, params: Record<string, unknown>, ctx: Context, paramHeaders?: Record<string, string>): Promise<Record<string, unknown>>;
  /** Whether the upstream completes arguments. */
  readonly completes: boolean;
}

/** The upstream's listings as items of the proxy server, each forwarded when used. */
export function remoteItems(lists: Partial<Record<ListKind, Record<string, unknown>[]>>, upstream: Forwarder): RemoteItems {
  const complete = (ref: Record<string, unknown>) =>
    upstream.completes
      ? async (argument: { name: string; value: string }, context: { arguments?: Record<string, string> } | undefined, ctx: Context) => {
          const params: Record<string, unknown> = { ref, argument };
          if (context !== undefined) params.context = context;
          const result = await upstream.forward('completion/complete', params, ctx);
          return (result.completion as { values: string[]; total?: number; hasMore?: boolean }) ?? { values: [] };
        }
      : undefined;
  const tools = (lists.tools ?? []).map((entry): RemoteTool => {
    const name = entry.name as string;
    const mirrored = headerParams(entry.inputSchema);
    return {
      listing: pick(entry, ['name', 'title', 'description', 'inputSchema', 'outputSchema', 'annotations', 'icons', '_meta']) as unknown as RemoteTool['listing'],
      call: (args, ctx) => upstream.forward('tools/call', { name, arguments: args }, ctx, mirrored.length === 0 ? undefined : paramHeadersOf(mirrored, args)),
    };
  });
  const prompts = (lists.prompts ?? []).map((entry): RemotePrompt => {
    const name = entry.name as string;
    return {
      listing: pick(entry, ['name', 'title', 'description', 'arguments', 'icons', '_meta']) as unknown as RemotePrompt['listing'],
      get: (args, ctx) => upstream.forward('prompts/get', { name, arguments: args }, ctx),
      complete: complete({ type: 'ref/prompt', name }),
    };
  });
  const read = (uri: string, ctx: Context) => upstream.forward('resources/read', { uri }, ctx);
  const resources = (lists.resources ?? []).map(
    (entry): RemoteResource => ({ listing: pick(entry, ['uri', 'name', 'title', 'description', 'mimeType', 'size', 'annotations', 'icons', '_meta']) as unknown as RemoteResource['listing'], read }),
  );
  const templates = (lists.resourceTemplates ?? []).map(
    (entry): RemoteTemplate => ({
      listing: pick(entry, ['uriTemplate', 'name', 'title', 'description', 'mimeType', 'annotations', 'icons', '_meta']) as unknown as RemoteTemplate['listing'],
      read,
      complete: complete({ type: 'ref/resource', uri: entry.uriTemplate }),
    }),
  );
  return { tools, prompts, resources, templates };
}

function pick(entry: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const picked: Record<string, unknown> = {};
  for (const key of keys) if (entry[key] !== undefined) picked[key] = entry[key];
  return picked;
}

/** An argument a 2026-07-28 upstream wants mirrored in a header (`x-mcp-header`). */
interface HeaderParam {
  header: string;
  path: string[];
}

/** The `x-mcp-header` marks of a tool's input schema, through nested `properties`. */
function headerParams(schema: unknown, path: string[] = []): HeaderParam[] {
  const properties = (schema as { properties?: Record<string, unknown> } | undefined)?.properties;
  if (typeof properties !== 'object' || properties === null) return [];
  const found: HeaderParam[] = [];
  for (const [key, property] of Object.entries(properties)) {
    const mark = (property as Record<string, unknown> | null)?.['x-mcp-header'];
    if (typeof mark === 'string') found.push({ header: `Mcp-Param-${mark}`, path: [...path, key] });
    found.push(...headerParams(property, [...path, key]));
  }
  return found;
}

function paramHeadersOf(params: readonly HeaderParam[], args: Record<string, unknown>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const { header, path } of params) {
    let value: unknown = args;
    for (const key of path) value = typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined;
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') headers[header] = String(value);
  }
  return headers;
}
