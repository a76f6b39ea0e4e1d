import { DefinitionError } from '../errors';
import type { Constructor, ResourceDefinition, ResourceListing } from '../metadata';
import { UriTemplate } from '../uri';
import { APP_MIME_TYPE, checkResourceUi } from '../apps';
import { bytesToBase64 } from '../platform';
import type { Context } from '../runtime/Context';
import type { InvocationTarget } from '../runtime/middleware';
import { completeLocally, completionKey } from './completion';
import { describeFor, perRevision } from './describe';
import { invokeKeepingMeaning } from './invokeKeepingMeaning';
import type { ItemHost } from './ItemHost';
import type { ResourceItem, TemplateItem } from './ResourceItem';

/** What a resource or template of a server's own providers needs of the server. */
export type ResourceHost = Pick<ItemHost, 'invoke' | 'access' | 'completions'>;

/** A `@Resource` method's item: a resource when its uri is fixed, else a template. */
export type BuiltResource = { readonly kind: 'resource'; readonly item: ResourceItem } | { readonly kind: 'template'; readonly item: TemplateItem };

/** Turns a `@Resource` definition into a resource or template `host` serves: the method's value as contents. */
export function buildResource(definition: ResourceDefinition, provider: Constructor, host: ResourceHost): BuiltResource {
  const { options, methodName } = definition;
  const where = `${provider.name}.${methodName}`;
  if (typeof options.uri !== 'string' || options.uri === '') {
    throw new DefinitionError('INVALID_OPTION', `${where}: @Resource needs a uri, e.g. @Resource({ uri: 'docs://readme' })`);
  }
  const template = UriTemplate.isTemplate(options.uri) ? parseTemplate(options.uri, where) : undefined;
  if (options.list !== undefined) {
    if (!template) throw new DefinitionError('INVALID_OPTION', `${where}: "list" applies only to templates; "${options.uri}" has no {variables}`);
    if (typeof (provider.prototype as Record<string, unknown>)[options.list] !== 'function') {
      throw new DefinitionError('INVALID_OPTION', `${where}: list: "${options.list}" must name a method of ${provider.name}`);
    }
  }
  const cache = options.cache;
  if (cache !== undefined) {
    const ttlOk = cache.ttlMs === undefined || (Number.isInteger(cache.ttlMs) && cache.ttlMs >= 0);
    const scopeOk = cache.cacheScope === undefined || cache.cacheScope === 'public' || cache.cacheScope === 'private';
    if (typeof cache !== 'object' || cache === null || !ttlOk || !scopeOk) {
      throw new DefinitionError('INVALID_OPTION', `${where}: cache needs an integer ttlMs >= 0 and a cacheScope of "public" or "private"`);
    }
  }
  const name = options.name ?? methodName;
  const ui = options.ui;
  if (ui !== undefined) checkResourceUi(ui, options.uri, `${where}: @Resource`);
  // An app's UI is an HTML document for the host; its settings ride in `_meta.ui`.
  const mimeType = options.mimeType ?? (ui === undefined ? undefined : APP_MIME_TYPE);
  const described = ui === undefined ? options : { ...options, _meta: { ...options._meta, ui } };
  const listing = perRevision((revision) => {
    const entry: Record<string, unknown> = template ? { uriTemplate: options.uri, name } : { uri: options.uri, name };
    describeFor(revision, entry, described);
    if (mimeType !== undefined) entry.mimeType = mimeType;
    if (!template && options.size !== undefined) entry.size = options.size;
    if (options.annotations) entry.annotations = options.annotations;
    return entry;
  });
  const target: InvocationTarget = { kind: 'resource', name: options.uri, provider, methodName };
  const key = options.uri;
  const read = async (uri: string, args: unknown[], ctx: Context): Promise<Record<string, unknown>> => {
    if (cache) ctx.hintResult(cache);
    return { contents: await readFrom(host, target, definition, uri, args, ctx) };
  };
  const complete = (params: Record<string, unknown>, ctx: Context) =>
    completeLocally(host, completionKey({ resource: key, argument: (params.argument as { name: string }).name }), params, ctx);
  if (!template) {
    return { kind: 'resource', item: { key, name, target, ui, listing, read: (uri, ctx) => read(uri, [ctx], ctx), complete } };
  }
  const listTarget: InvocationTarget | undefined = options.list === undefined ? undefined : { ...target, methodName: options.list };
  const enumerate = async (ctx: Context): Promise<readonly ResourceListing[]> => {
    const items = (await host.invoke(listTarget!, [ctx], ctx)) as ResourceListing[] | undefined;
    // What the template says of its resources stands for each one that says nothing of its type.
    return (items ?? []).map((item) => (item.mimeType === undefined && options.mimeType !== undefined ? { ...item, mimeType: options.mimeType } : item));
  };
  return {
    kind: 'template',
    item: {
      key,
      name,
      target,
      listing,
      match: (uri) => template.match(uri),
      read: (uri, variables, ctx) => read(uri, [variables, ctx], ctx),
      enumerate: listTarget === undefined ? () => NONE : enumerate,
      complete,
    },
  };
}

const NONE: readonly ResourceListing[] = Object.freeze([]);

/** The contents of a read: the method's value, shaped; an app's UI with its settings on each item. */
async function readFrom(host: ResourceHost, target: InvocationTarget, definition: ResourceDefinition, uri: string, args: unknown[], ctx: Context) {
  const value = await invokeKeepingMeaning(host, target, args, ctx);
  const { mimeType, ui } = definition.options;
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

function parseTemplate(uri: string, where: string): UriTemplate {
  try {
    return new UriTemplate(uri);
  } catch (error) {
    throw new DefinitionError('INVALID_OPTION', `${where}: ${(error as Error).message}`);
  }
}
