import { clip, echo } from '../protocol';
import { ClientCapabilityError, InvalidParamsError, McpError, RequestEndedError, ToolError, UserRejectedError } from '../errors';
import type { Context } from '../runtime/Context';
import type { RegisteredTool } from '../runtime/buildTool';
import type { MethodHandler } from '../runtime/Dispatcher';
import type { FeatureHost } from './FeatureHost';
import type { CorePlugin } from '../runtime/plugins';
import { pageFor, perCaller, visibleTo } from './listFor';
import type { ToolSearchService } from './FeatureHost';
import { callableBy, toolsFor } from './apps';
import { routeAll } from './routeAll';
import { callAsTask } from './tasksCall';
import { shapeToolResult, toolErrorResult } from './toolResult';
import type { CallToolResult } from './toolResult';

/** `tools/list` and `tools/call` over the server's tool registry. */
export function toolHandlers(host: FeatureHost): Record<string, MethodHandler> {
  const { tools } = host;

  const list: MethodHandler = (params, ctx) => {
    if (host.toolSearch) return searchList(host, host.toolSearch, params, ctx);
    const { page, items } = pageFor(host, host.toolPages, params.cursor, ctx);
    const answer = (visible: readonly RegisteredTool[]) => {
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
      const runTool = () => invokeTool(host, tool, params.arguments, ctx);
      const run = () => callAsTask(host, tool, params, ctx, runTool) ?? runTool();
      return allowed instanceof Promise ? allowed.then(run) : run();
    }
    if (allowed instanceof Promise) return allowed.then(() => invokeTool(host, tool, params.arguments, ctx));
    return invokeTool(host, tool, params.arguments, ctx);
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

/** What running a tool needs of the server. */
export type ToolInvoker = Pick<FeatureHost, 'invoke' | 'reportError' | 'debug' | 'access'>;

/**
 * Validates the arguments, runs the tool and shapes its result. Failures the model can act on
 * (invalid arguments, ToolError, unexpected exceptions) become `isError` results.
 */
export function invokeTool(host: ToolInvoker, tool: RegisteredTool, args: unknown, ctx: Context): CallToolResult | Promise<CallToolResult> {
  // A mounted server's tool: that server checks, validates and runs it (here, or in a task of this server).
  if (tool.mounted) return tool.mounted.runTool(args, ctx) as CallToolResult | Promise<CallToolResult>;
  const name = tool.name;
  if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) {
    return toolErrorResult(`Invalid arguments for tool "${name}": "arguments" must be an object`);
  }
  if (!tool.inputValidator) {
    if (args !== undefined && Object.keys(args).length > 0) {
      const keys = Object.keys(args);
      // Bounded like every other echo of client input: at most 20 names, each cut.
      const unknown = keys.slice(0, 20).map((key) => `unknown property "${clip(key)}"`);
      if (keys.length > 20) unknown.push(`…and ${keys.length - 20} more unknown properties`);
      return toolErrorResult(`Invalid arguments for tool "${name}":\n- ${unknown.join('\n- ')}`);
    }
    return runTool(host, tool, undefined, ctx);
  }
  // Stays synchronous unless validation or the method really is asynchronous: most calls are not.
  const outcome = tool.inputValidator.validate(args ?? {});
  const proceed = (checked: Awaited<typeof outcome>) =>
    checked.ok ? runTool(host, tool, checked.value, ctx) : toolErrorResult(`Invalid arguments for tool "${name}":\n- ${checked.errors.join('\n- ')}`);
  return outcome instanceof Promise ? outcome.then(proceed) : proceed(outcome);
}

function runTool(host: ToolInvoker, tool: RegisteredTool, input: unknown, ctx: Context): CallToolResult | Promise<CallToolResult> {
  let value: unknown;
  if (tool.transformed) {
    // A tool made from another runs that one, which shapes its own result.
    try {
      const result = tool.transformed(input, ctx) as CallToolResult | Promise<CallToolResult>;
      return result instanceof Promise ? result.catch((error: unknown) => failedCall(error, tool.name, host, ctx)) : result;
    } catch (error) {
      return failedCall(error, tool.name, host, ctx);
    }
  }
  try {
    const callArgs = tool.parameters.map((source) => (source === 'input' ? input : ctx));
    value = host.invoke(tool.target, callArgs, ctx);
  } catch (error) {
    return failedCall(error, tool.name, host, ctx);
  }
  if (value instanceof Promise) {
    return value.then(
      (resolved) => shapeToolResult(resolved, tool, ctx.revision),
      (error) => failedCall(error, tool.name, host, ctx),
    );
  }
  return shapeToolResult(value, tool, ctx.revision);
}

function failedCall(error: unknown, name: string, host: ToolInvoker, ctx: Context): CallToolResult {
  // A request that ended with input_required is not the tool's failure; nor is what the
  // request's era answers as a protocol error of its own (2026-07-28: a missing capability
  // is -32021, a malformed input response -32602).
  if (error instanceof RequestEndedError) throw error;
  if (!(error instanceof McpError) && ctx.codec.error(error) !== undefined) throw error;
  // These say what went wrong without revealing internals, and the model can act on them.
  if (error instanceof ToolError || error instanceof ClientCapabilityError || error instanceof UserRejectedError) {
    return toolErrorResult(error.message);
  }
  // A deliberate protocol error from the author travels as a JSON-RPC error.
  if (error instanceof McpError) throw error;
  if (ctx.cancelled) throw error;
  host.reportError(`tool "${name}" threw`, error);
  const detail = host.debug && error instanceof Error ? `: ${error.message}` : '';
  return toolErrorResult(`Tool "${name}" failed with an internal error${detail}`);
}
