import { APPS_EXTENSION, clientShowsApps, isAppOnly } from '../apps';
import { DefinitionError } from '../errors';
import type { Context } from '../runtime/Context';
import type { CorePlugin } from '../runtime/plugins';
import type { ToolItem } from '../items/ToolItem';
import type { FeatureCatalog } from './rooms';

/** `core:apps`: the MCP Apps extension, advertised in every era while a tool or resource has a UI. */
export function appsPlugin(catalog: Pick<FeatureCatalog, 'appTools' | 'resources'>): CorePlugin {
  return {
    name: 'core:apps',
    register(plugin) {
      plugin.extension(APPS_EXTENSION, () => (servesApps(catalog) ? {} : undefined));
    },
  };
}

/** Whether any tool or resource of the server belongs to an app. */
export function servesApps(host: Pick<FeatureCatalog, 'appTools' | 'resources'>): boolean {
  return host.appTools || host.resources.list().some((resource) => resource.ui !== undefined);
}

/**
 * The tools a client may see, as it may see them: a client that cannot show apps gets tools
 * without their UI, and not the tools only an app may call (its text fallback).
 */
export function toolsFor(tools: readonly ToolItem[], ctx: Context): Array<Record<string, unknown>> {
  if (clientShowsApps(ctx.clientCapabilities as Record<string, unknown>)) return tools.map((tool) => tool.listing(ctx.revision));
  return tools.filter((tool) => !isAppOnly(tool.ui)).map((tool) => tool.plainListing(ctx.revision));
}

/** Whether the caller of `ctx` may call this tool: an app-only tool needs a client that shows apps. */
export function callableBy(tool: ToolItem, ctx: Context): boolean {
  return !isAppOnly(tool.ui) || clientShowsApps(ctx.clientCapabilities as Record<string, unknown>);
}

/** Every tool's UI names a `ui://` resource the server has: checked when it starts serving, and for tools added later. */
export function checkAppLinks(host: Pick<FeatureCatalog, 'tools' | 'resources'>): void {
  for (const tool of host.tools.list()) {
    if (tool.ui === undefined) continue;
    const resource = host.resources.get(tool.ui.resourceUri);
    if (!resource || resource.ui === undefined) {
      throw new DefinitionError(
        'INVALID_OPTION',
        `${tool.target.provider.name}.${tool.target.methodName}: @Tool ui.resourceUri "${tool.ui.resourceUri}" names no app UI; declare it with @Resource({ uri: '${tool.ui.resourceUri}', ui: {} }) on a registered provider`,
      );
    }
  }
}
