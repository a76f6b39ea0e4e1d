import type { MountedItem } from './mounted';
import { DefinitionError } from '../errors';
import type { Revision } from '../protocol';
import type { Constructor, ResourceDefinition } from '../metadata';
import { UriTemplate } from '../uri';
import { APP_MIME_TYPE, checkResourceUi } from '../apps';
import { describeFor, perRevision } from './describe';
import type { InvocationTarget } from './middleware';

export interface RegisteredResource {
  /** The fixed uri, or the template text. */
  readonly key: string;
  readonly name: string;
  readonly provider: Constructor;
  readonly methodName: string;
  /** What `invoke` calls. */
  readonly target: InvocationTarget;
  readonly definition: ResourceDefinition;
  /** Set for templates. */
  readonly template: UriTemplate | undefined;
  /** The `resources/list` entry (fixed) or `resources/templates/list` entry (template). */
  listing(revision: Revision): Record<string, unknown>;
  /** Set when the resource comes from a mounted server (`server.mount`). */
  readonly mounted?: MountedItem;
}

export function buildResource(definition: ResourceDefinition, provider: Constructor): RegisteredResource {
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
  return { key: options.uri, name, provider, methodName, target, definition, template, listing };
}

function parseTemplate(uri: string, where: string): UriTemplate {
  try {
    return new UriTemplate(uri);
  } catch (error) {
    throw new DefinitionError('INVALID_OPTION', `${where}: ${(error as Error).message}`);
  }
}
