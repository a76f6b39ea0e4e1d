import { InvalidRequestError } from '../errors';
import { resourceNotFound } from '../items/ResourceItem';
import type { Context } from '../runtime/Context';
import type { InvocationTarget } from '../runtime/middleware';
import type { MethodHandler } from '../runtime/Dispatcher';
import type { FeatureCatalog } from './rooms';
import type { CorePlugin } from '../runtime/plugins';
import { pageFor, perCaller, visibleTo } from './listFor';
import { requireUri } from './params';
import { routeAll } from './routeAll';
import { inSkillNamespace, readSkillFile, skillResources } from './skills';

/** What the resource methods read: resources, templates and their pages, the skills' files, the access rules. */
type ResourcesCatalog = Pick<FeatureCatalog, 'resources' | 'resourcePages' | 'templates' | 'templatePages' | 'skills' | 'access'>;

/** `core:resources`: the resource methods, and the `resources` capability while the server has resources, templates or skills. */
export function resourcesPlugin(host: ResourcesCatalog): CorePlugin {
  return {
    name: 'core:resources',
    register(plugin) {
      // Subscriptions are the session's: without a handshake, `subscriptions/listen` carries them.
      routeAll(plugin, resourceHandlers(host), { 'resources/subscribe': ['handshake'], 'resources/unsubscribe': ['handshake'] });
      plugin.capability('resources', () => (host.resources.size > 0 || host.templates.size > 0 || host.skills.size > 0 ? { subscribe: true, listChanged: true } : undefined));
    },
  };
}

/** `resources/list`, `resources/templates/list`, `resources/read`, `resources/(un)subscribe`. */
export function resourceHandlers(host: ResourcesCatalog): Record<string, MethodHandler> {
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
    await host.access.check(found.target, ctx);
    return found.read(ctx);
  };

  const subscribe: MethodHandler = async (params, ctx) => {
    const uri = requireUri(params, 'resources/subscribe');
    if (ctx.session?.stateless) throw new InvalidRequestError('resources/subscribe needs a session; this server is stateless');
    const found = findResource(host, uri);
    const skill = found ? undefined : inSkillNamespace(host, uri);
    if (!found && !skill) throw resourceNotFound(uri);
    await host.access.check(found ? found.target : skill!.target, ctx);
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

/** What serves `uri`: the fixed resource with that uri, else the first template that matches it. */
export function findResource(host: Pick<FeatureCatalog, 'resources' | 'templates'>, uri: string): { target: InvocationTarget; read(ctx: Context): Promise<Record<string, unknown>> } | undefined {
  const fixed = host.resources.get(uri);
  if (fixed) return { target: fixed.target, read: (ctx) => fixed.read(uri, ctx) };
  for (const template of host.templates.list()) {
    const variables = template.match(uri);
    if (variables) return { target: template.target, read: (ctx) => template.read(uri, variables, ctx) };
  }
  return undefined;
}

/** What the templates with a `list` method the caller may see list now, as `resources/list` entries. */
async function enumerateTemplates(host: Pick<FeatureCatalog, 'templates' | 'access'>, ctx: Context): Promise<Record<string, unknown>[]> {
  const listed: Record<string, unknown>[] = [];
  for (const template of await visibleTo(host, host.templates.list(), ctx)) {
    for (const item of await template.enumerate(ctx)) {
      const entry: Record<string, unknown> = { uri: item.uri, name: item.name ?? item.uri };
      if (item.title !== undefined && ctx.revision.titlesAndStructuredOutput) entry.title = item.title;
      if (item.description !== undefined) entry.description = item.description;
      if (item.mimeType !== undefined) entry.mimeType = item.mimeType;
      if (item.size !== undefined) entry.size = item.size;
      listed.push(entry);
    }
  }
  return listed;
}
