import { clip, echo } from '../protocol';
import { InvalidParamsError } from '../errors';
import type { Context } from '../runtime/Context';
import type { ToolItem } from '../items/ToolItem';
import type { MethodHandler } from '../runtime/Dispatcher';
import type { FeatureHost } from './FeatureHost';
import type { CorePlugin } from '../runtime/plugins';
import { pageFor, perCaller, visibleTo } from './listFor';
import type { ToolSearchService } from './FeatureHost';
import { callableBy, toolsFor } from './apps';
import { routeAll } from './routeAll';
import { callAsTask } from './tasksCall';

/** `tools/list` and `tools/call` over the server's tool registry. */
export function toolHandlers(host: FeatureHost): Record<string, MethodHandler> {
  const { tools } = host;

  const list: MethodHandler = (params, ctx) => {
    if (host.toolSearch) return searchList(host, host.toolSearch, params, ctx);
    const { page, items } = pageFor(host, host.toolPages, params.cursor, ctx);
    const answer = (visible: readonly ToolItem[]) => {
      // With apps, what a client sees depends on whether it can show them: never a shared cache entry.
      if (host.appTools) ctx.hintResult({ cacheScope: 'private' });
      const listed = host.appTools ? toolsFor(visible, ctx) : visible.map((tool) => tool.listing(ctx.revision));
      return perCaller(page.nextCursor === undefined ? { tools: listed } : { tools: listed, nextCursor: page.nextCursor }, host, ctx);
    };
    return items instanceof Promise ? items.then(answer) : answer(items);
  };

  const call: MethodHandler = (params, ctx) => {
    const name = params.name;
    if (typeof name !== 'string') throw new InvalidParamsError('tools/call needs a string "name"');
    if (host.toolSearch?.owns(name)) return host.toolSearch.call(host, call, params, ctx);
    const tool = tools.get(name);
    if (!tool || !callableBy(tool, ctx)) throw new InvalidParamsError(`Unknown tool: ${clip(name)}`, { name: echo(name) });
    const allowed = host.access.check(tool.target, ctx);
    // A tool with task support, or a call asking for a task, may become a task (tasksCall.ts).
    if (tool.taskSupport !== 'forbidden' || params.task !== undefined) {
      const runTool = () => tool.call(params.arguments, ctx);
      const run = () => callAsTask(host, tool, params, ctx, runTool) ?? runTool();
      return allowed instanceof Promise ? allowed.then(run) : run();
    }
    if (allowed instanceof Promise) return allowed.then(() => tool.call(params.arguments, ctx));
    return tool.call(params.arguments, ctx);
  };

  return { 'tools/list': list, 'tools/call': call };
}

/** With tool search, the list is the two search tools and the pinned tools the caller may see, on one page. */
async function searchList(host: FeatureHost, search: ToolSearchService, params: Record<string, unknown>, ctx: Context): Promise<Record<string, unknown>> {
  if (params.cursor !== undefined) throw new InvalidParamsError('Invalid cursor: this list has one page');
  const { own, pinned } = search.listed(await visibleTo(host, host.tools.list(), ctx));
  const shown = host.appTools ? toolsFor(pinned, ctx) : pinned.map((tool) => tool.listing(ctx.revision));
  if (host.appTools) ctx.hintResult({ cacheScope: 'private' });
  return perCaller({ tools: [...own, ...shown] }, host, ctx);
}

/** `core:tools`: the tool methods, and the `tools` capability while the server has tools. */
export function toolsPlugin(host: FeatureHost): CorePlugin {
  return {
    name: 'core:tools',
    register(plugin) {
      routeAll(plugin, toolHandlers(host));
      plugin.capability('tools', () => (host.tools.size > 0 || host.toolSearch ? { listChanged: true } : undefined));
    },
  };
}
