import { clip, echo } from '../protocol';
import { InvalidParamsError } from '../errors';
import type { ToolItem } from '../items/ToolItem';
import type { MethodHandler } from '../runtime/Dispatcher';
import type { CorePlugin } from '../runtime/plugins';
import type { FeatureCatalog } from './rooms';
import { pageFor, perCaller } from './listFor';
import { callableBy, toolsFor } from './apps';
import { routeAll } from './routeAll';
import { callAsTask } from './tasksCall';
import type { TaskCallHost } from './tasksCall';

/** What the tool methods read: the tools, their pages and their access rules. */
export type ToolsCatalog = Pick<FeatureCatalog, 'tools' | 'toolPages' | 'appTools' | 'access'>;

/** `tools/list` and `tools/call`, as routed. */
export interface ToolRoutes {
  readonly list: MethodHandler;
  readonly call: MethodHandler;
}

/** A plugin in front of `tools/list` and `tools/call` (tool search): given the routes so far, the routes it makes of them. */
export type ToolsLayer = (inner: ToolRoutes) => ToolRoutes;

/**
 * Where plugins put themselves in front of the tool methods. A layer is placed before
 * `core:tools` registers, which routes the methods through every layer once: a server
 * without layers routes the plain handlers, with nothing to ask per request.
 */
export class ToolsSeam {
  private readonly layers: ToolsLayer[] = [];
  private routed = false;

  /** Whether a layer lists tools of its own: the `tools` capability then stands without registered tools. */
  get layered(): boolean {
    return this.layers.length > 0;
  }

  layer(layer: ToolsLayer): void {
    if (this.routed) throw new Error('the tool methods are routed already: a tools layer goes in before core:tools');
    this.layers.push(layer);
  }

  /** The routes of the tool methods: the plain ones, through each layer in the order placed. */
  routes(plain: ToolRoutes): ToolRoutes {
    this.routed = true;
    return this.layers.reduce((routes, layer) => layer(routes), plain);
  }
}

/** `tools/list` and `tools/call` over the server's tool registry. */
export function toolHandlers(catalog: ToolsCatalog, taskHost: TaskCallHost): ToolRoutes {
  const { tools } = catalog;

  const list: MethodHandler = (params, ctx) => {
    const { page, items } = pageFor(catalog, catalog.toolPages, params.cursor, ctx);
    const answer = (visible: readonly ToolItem[]) => {
      // With apps, what a client sees depends on whether it can show them: never a shared cache entry.
      if (catalog.appTools) ctx.hintResult({ cacheScope: 'private' });
      const listed = catalog.appTools ? toolsFor(visible, ctx) : visible.map((tool) => tool.listing(ctx.revision));
      return perCaller(page.nextCursor === undefined ? { tools: listed } : { tools: listed, nextCursor: page.nextCursor }, catalog, ctx);
    };
    return items instanceof Promise ? items.then(answer) : answer(items);
  };

  const call: MethodHandler = (params, ctx) => {
    const name = params.name;
    if (typeof name !== 'string') throw new InvalidParamsError('tools/call needs a string "name"');
    const tool = tools.get(name);
    if (!tool || !callableBy(tool, ctx)) throw new InvalidParamsError(`Unknown tool: ${clip(name)}`, { name: echo(name) });
    const allowed = catalog.access.check(tool.target, ctx);
    // A tool with task support, or a call asking for a task, may become a task (tasksCall.ts).
    if (tool.taskSupport !== 'forbidden' || params.task !== undefined) {
      const runTool = () => tool.call(params.arguments, ctx);
      const run = () => callAsTask(taskHost, tool, params, ctx, runTool) ?? runTool();
      return allowed instanceof Promise ? allowed.then(run) : run();
    }
    if (allowed instanceof Promise) return allowed.then(() => tool.call(params.arguments, ctx));
    return tool.call(params.arguments, ctx);
  };

  return { list, call };
}

/** `core:tools`: the tool methods (through the seam's layers), and the `tools` capability while the server has tools. */
export function toolsPlugin(catalog: ToolsCatalog, taskHost: TaskCallHost, seam: ToolsSeam): CorePlugin {
  return {
    name: 'core:tools',
    register(plugin) {
      const { list, call } = seam.routes(toolHandlers(catalog, taskHost));
      routeAll(plugin, { 'tools/list': list, 'tools/call': call });
      plugin.capability('tools', () => (catalog.tools.size > 0 || seam.layered ? { listChanged: true } : undefined));
    },
  };
}
