import { clip, echo } from '../protocol';
import { ErrorCode, InvalidRequestError, McpError } from '../errors';
import type { ResourceListing } from '../metadata';
import type { RegisteredResource } from '../runtime/buildResource';
import type { Context } from '../runtime/Context';
import type { MethodHandler } from '../runtime/Dispatcher';
import type { FeatureHost } from './FeatureHost';
import type { CorePlugin } from '../runtime/plugins';
import { pageFor, perCaller, visibleTo } from './listFor';
import { APP_MIME_TYPE } from '../apps';
import { invokeKeepingMeaning } from './invokeOutsideTools';
import { requireUri } from './params';
import { routeAll } from './routeAll';
import { inSkillNamespace, readSkillFile, skillResources } from './skills';
import { bytesToBase64 } from '../platform';

/** `core:resources`: the resource methods, and the `resources` capability while the server has resources, templates or skills. */
export function resourcesPlugin(host: FeatureHost): CorePlugin {
  return {
    name: 'core:resources',
    register(plugin) {
      // Subscriptions are the session's: without a handshake, `subscriptions/listen` carries them.
      routeAll(plugin, resourceHandlers(host), { 'resources/subscribe': ['handshake'], 'resources/unsubscribe': ['handshake'] });
      plugin.capability('resources', () => (host.resources.size > 0 || host.templates.size > 0 || host.skills.size > 0 ? { subscribe: true, listChanged: true } : undefined));
    },
  };
}

/** -32002 with the uri in `data`, as the specification asks. */
export function resourceNotFound(uri: string): McpError {
  return new McpError(ErrorCode.ResourceNotFound, `Resource not found: ${clip(uri)}`, { uri: echo(uri) });
}

/** `resources/list`, `resources/templates/list`, `resources/read`, `resources/(un)subscribe`. */
export function resourceHandlers(host: FeatureHost): Record<string, MethodHandler> {
  const list: MethodHandler = async (params, ctx) => {
    const { page, items } = pageFor(host, host.resourcePages, params.cursor, ctx);
    const listed: Record<string, unknown>[] = (await items).map((r) => r.listing(ctx.revision));
    // Templates' own enumerations and the skills' SKILL.md files are live, so they follow the (cached) fixed resources on the last page.
    if (page.nextCursor === undefined) listed.push(...(await enumerateTemplates(host, ctx)), ...(await skillResources(host, ctx)));
    return perCaller(page.nextCursor === undefined ? { resources: listed } : { resources: listed, nextCursor: page.nextCursor }, host, ctx);
  };

  const listTemplates: MethodHandler = async (params, ctx) => {
    const { page, items } = pageFor(host, host.templatePages, params.cursor, ctx);
    const resourceTemplates = (await items).map((t) => t.listing(ctx.revision));
    return perCaller(page.nextCursor === undefined ? { resourceTemplates } : { resourceTemplates, nextCursor: page.nextCursor }, host, ctx);
  };

  const read: MethodHandler = async (params, ctx) => {
    const uri = requireUri(params, 'resources/read');
    const found = findResource(host, uri);
    if (!found) {
      const contents = await readSkillFile(host, uri, ctx);
      if (contents) return { contents };
      throw resourceNotFound(uri);
    }
    await host.access.check(found.resource.target, ctx);
    const mounted = found.resource.mounted;
    if (mounted) {
      // The mounted server reads its own uri; contents of that uri name this server's.
      const childUri = mounted.toChildUri(uri);
      if (childUri === undefined) throw resourceNotFound(uri);
      const read = await mounted.forward('resources/read', { ...params, uri: childUri }, ctx);
      const contents = (read.contents as Array<Record<string, unknown>> | undefined) ?? [];
      return { ...read, contents: contents.map((item) => (item.uri === childUri ? { ...item, uri } : item)) };
    }
    const args = found.variables === undefined ? [ctx] : [found.variables, ctx];
    const cache = found.resource.definition.options.cache;
    if (cache) ctx.hintResult(cache);
    return { contents: await readFrom(host, found.resource, uri, args, ctx) };
  };

  const subscribe: MethodHandler = async (params, ctx) => {
    const uri = requireUri(params, 'resources/subscribe');
    if (ctx.session?.stateless) throw new InvalidRequestError('resources/subscribe needs a session; this server is stateless');
    const found = findResource(host, uri);
    const skill = found ? undefined : inSkillNamespace(host, uri);
    if (!found && !skill) throw resourceNotFound(uri);
    await host.access.check(found ? found.resource.target : skill!.target, ctx);
    if (ctx.session && !ctx.session.subscriptions.has(uri)) {
      ctx.session.subscriptions.add(uri);
      ctx.session.changed();
    }
    return {};
  };

  const unsubscribe: MethodHandler = (params, ctx) => {
    if (ctx.session?.subscriptions.delete(requireUri(params, 'resources/unsubscribe'))) ctx.session.changed();
    return {};
  };

  return {
    'resources/list': list,
    'resources/templates/list': listTemplates,
    'resources/read': read,
    'resources/subscribe': subscribe,
    'resources/unsubscribe': unsubscribe,
  };
}

/** The fixed resource with that uri, else the first template that matches it, with its variables. */
export function findResource(host: FeatureHost, uri: string): { resource: RegisteredResource; variables?: Record<string, unknown> } | undefined {
  const fixed = host.resources.get(uri);
  if (fixed) return { resource: fixed };
  for (const template of host.templates.list()) {
    const variables = template.template!.match(uri);
    if (variables) return { resource: template, variables };
  }
  return undefined;
}

async function readFrom(host: FeatureHost, resource: RegisteredResource, uri: string, args: unknown[], ctx: Context) {
  const value = await invokeKeepingMeaning(host, resource.target, args, ctx);
  const { mimeType, ui } = resource.definition.options;
  if (ui === undefined) return shapeContents(value, uri, mimeType);
  // An app's UI: the host reads its settings from each content item (`_meta` from 2025-06-18).
  return shapeContents(value, uri, mimeType ?? APP_MIME_TYPE).map((item) => {
    // Contents the method built itself get the app's MIME type too when they name none.
    const content: Record<string, unknown> = { mimeType: mimeType ?? APP_MIME_TYPE, ...(item as Record<string, unknown>) };
    if (!ctx.revision.titlesAndStructuredOutput) return content;
    const meta = content._meta as Record<string, unknown> | undefined;
    return { ...content, _meta: { ...meta, ui: { ...ui, ...(meta?.ui as Record<string, unknown> | undefined) } } };
  });
}

/** string → text, bytes → base64 blob, `{ contents }` passes through, other values → JSON text. */
export function shapeContents(value: unknown, uri: string, mimeType: string | undefined): unknown[] {
  if (typeof value === 'object' && value !== null && Array.isArray((value as { contents?: unknown }).contents)) {
    return (value as { contents: unknown[] }).contents;
  }
  const base = (fallbackType: string) => ({ uri, mimeType: mimeType ?? fallbackType });
  if (typeof value === 'string') return [{ ...base('text/plain'), text: value }];
  if (value instanceof Uint8Array) {
    return [{ ...base('application/octet-stream'), blob: bytesToBase64(value) }];
  }
  return [{ ...base('application/json'), text: JSON.stringify(value ?? null) }];
}

async function enumerateTemplates(host: FeatureHost, ctx: Context): Promise<Record<string, unknown>[]> {
  const listed: Record<string, unknown>[] = [];
  for (const template of await visibleTo(host, host.templates.list(), ctx)) {
    const method = template.definition.options.list;
    if (!method) continue;
    const target = { ...template.target, methodName: method };
    const mounted = template.mounted;
    const items = (await (mounted ? mounted.invoke(target, [ctx], ctx) : host.invoke(target, [ctx], ctx))) as ResourceListing[];
    for (const item of items ?? []) {
      const uri = mounted ? mounted.toParentUri(item.uri) : item.uri;
      const entry: Record<string, unknown> = { uri, name: item.name ?? uri };
      if (item.title !== undefined && ctx.revision.titlesAndStructuredOutput) entry.title = item.title;
      if (item.description !== undefined) entry.description = item.description;
      const mimeType = item.mimeType ?? template.definition.options.mimeType;
      if (mimeType !== undefined) entry.mimeType = mimeType;
      if (item.size !== undefined) entry.size = item.size;
      listed.push(entry);
    }
  }
  return listed;
}
