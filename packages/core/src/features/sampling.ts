import { AccessDeniedError, ClientCapabilityError, McpError, SamplingRuleError, UserRejectedError } from '../errors';
import { metadataStore } from '../metadata';
import type { Revision } from '../protocol';
import type { Constructor, ToolDefinition } from '../metadata';
import { buildTool } from '../items/buildTool';
import type { ToolHost } from '../items/buildTool';
import type { ToolItem } from '../items/ToolItem';
import { Context } from '../runtime/Context';
import type { ClientRequestOptions } from '../runtime/Context';
import type { CorePlugin } from '../runtime/plugins';
import { ClientFeatureServices } from '../runtime/services';
import { blocksOf, checkMessages, checkSampleRequest, checkSampleResult } from './samplingRules';
import type { SampleRequest, SamplingTool } from '../runtime/Context';
import type {
  SampleResult,
  SamplingMessage,
  SamplingToolDescription,
  ToolLoopResult,
  ToolResultContent,
  ToolUseContent,
} from '../runtime/samplingTypes';
import type { Catalog } from '../items/Catalog';
import { statelessRefusal } from './statelessRefusal';

const DEFAULT_MAX_ITERATIONS = 10;

/** What the tool loop needs of the server: it runs the tools, under the caller's rights. */
export type ToolInvoker = ToolHost & Pick<Catalog, 'access'>;

/** `core:sampling`: `ctx.sample()`, with the tool loop running tools through `invoker`. */
export function samplingPlugin(invoker: ToolInvoker): CorePlugin {
  return {
    name: 'core:sampling',
    register: (plugin) => plugin.provide(ClientFeatureServices.sample, (ctx, request, options) => sample(invoker, ctx, request, options)),
  };
}

/**
 * `ctx.sample()`: one `sampling/createMessage`, or, when the request carries tools the
 * server can run, the whole tool loop.
 */
export async function sample(
  invoker: ToolInvoker,
  ctx: Context,
  request: SampleRequest,
  options: ClientRequestOptions = {},
): Promise<SampleResult | ToolLoopResult> {
  checkSamplingCapabilities(ctx, request);
  checkSampleRequest(request);
  const { tools, toolChoice, maxIterations, ...base } = request;
  const described = (tools ?? []).filter(isDescription);
  const local = (tools ?? []).filter((t) => !isDescription(t)) as Array<SamplingTool | Constructor>;
  if (described.length > 0 && local.length > 0) {
    throw new SamplingRuleError('tools must be either all descriptions (you handle tool_use) or all runnable tools (the runtime runs the loop)');
  }
  if (local.length === 0) {
    const params: Record<string, unknown> = { ...base };
    if (tools) params.tools = described;
    if (toolChoice) params.toolChoice = toolChoice;
    return sampleOnce(ctx, params, described.length > 0, options.key);
  }
  if (maxIterations !== undefined && !(Number.isInteger(maxIterations) && maxIterations >= 1)) {
    throw new SamplingRuleError(`maxIterations must be a positive integer, got ${JSON.stringify(maxIterations)}`);
  }
  return toolLoop(invoker, ctx, base, runnableTools(invoker, local), toolChoice, maxIterations ?? DEFAULT_MAX_ITERATIONS, options.key);
}

function checkSamplingCapabilities(ctx: Context, request: SampleRequest): void {
  const sampling = ctx.clientCapabilities.sampling;
  if (!sampling) {
    const stateless = statelessRefusal(ctx, 'sampling', 'to sample');
    if (stateless) throw stateless;
    throw new ClientCapabilityError('sampling', 'The client did not declare the "sampling" capability, so it cannot be asked to sample');
  }
  const usesTools = request.tools !== undefined || request.toolChoice !== undefined || request.messages?.some(hasToolContent);
  if (usesTools && (!sampling.tools || !ctx.revision.samplingTools)) {
    throw new ClientCapabilityError(
      'sampling.tools',
      `Sampling with tools needs the client's "sampling.tools" capability (protocol 2025-11-25); this client ${
        !ctx.revision.samplingTools ? `speaks ${ctx.protocolVersion}` : 'did not declare it'
      }`,
    );
  }
  if (request.includeContext !== undefined && request.includeContext !== 'none' && !sampling.context) {
    throw new ClientCapabilityError(
      'sampling.context',
      `includeContext "${request.includeContext}" needs the client's "sampling.context" capability; leave it out or use "none"`,
    );
  }
}

function hasToolContent(message: SamplingMessage): boolean {
  return blocksOf(message).some((b) => b?.type === 'tool_use' || b?.type === 'tool_result');
}

async function sampleOnce(ctx: Context, params: Record<string, unknown>, toolsOffered: boolean, key: string | undefined): Promise<SampleResult> {
  let raw: Record<string, unknown>;
  try {
    raw = await ctx.requestClient('sampling/createMessage', params, { key });
  } catch (error) {
    if (error instanceof McpError && error.code === -1) throw new UserRejectedError(error.message, error.data);
    throw error;
  }
  return checkSampleResult(raw, toolsOffered);
}

async function toolLoop(
  invoker: ToolInvoker,
  ctx: Context,
  base: Omit<SampleRequest, 'tools' | 'toolChoice' | 'maxIterations'>,
  tools: Map<string, ToolItem>,
  toolChoice: SampleRequest['toolChoice'],
  maxIterations: number,
  key: string | undefined,
): Promise<ToolLoopResult> {
  const offered = [...tools.values()].map((tool) => offeredTool(tool, ctx.revision));
  const transcript: SamplingMessage[] = [...base.messages];
  for (let iteration = 1; ; iteration++) {
    ctx.signal.throwIfAborted();
    const last = iteration === maxIterations;
    const params: Record<string, unknown> = { ...base, messages: transcript, tools: offered };
    // On the last allowed turn the model must answer without tools, so the loop ends.
    if (last) params.toolChoice = { mode: 'none' };
    else if (toolChoice) params.toolChoice = toolChoice;
    // Each turn of the loop is its own question: `key`, `key-2`, `key-3`, …
    const result = await sampleOnce(ctx, params, true, key === undefined || iteration === 1 ? key : `${key}-${iteration}`);
    transcript.push({ role: result.role, content: result.content });
    const uses = blocksOf(result).filter((b): b is ToolUseContent => b.type === 'tool_use');
    if (uses.length === 0 || last) return { ...result, transcript, iterations: iteration };
    const results = await Promise.all(uses.map((use) => runToolUse(invoker, tools, use, ctx)));
    ctx.signal.throwIfAborted();
    transcript.push({ role: 'user', content: results });
    checkMessages(transcript.slice(-2));
  }
}

async function runToolUse(invoker: ToolInvoker, tools: Map<string, ToolItem>, use: ToolUseContent, ctx: Context): Promise<ToolResultContent> {
  const tool = tools.get(use.name);
  if (!tool) {
    return { type: 'tool_result', toolUseId: use.id, content: [{ type: 'text', text: `Unknown tool: ${use.name}` }], isError: true };
  }
  // The model (through the client) picks the tool: the caller's rights decide whether it runs.
  try {
    await invoker.access.check(tool.target, ctx);
  } catch (error) {
    if (!(error instanceof AccessDeniedError)) throw error;
    return { type: 'tool_result', toolUseId: use.id, content: [{ type: 'text', text: error.message }], isError: true };
  }
  const outcome = await tool.call(use.input, ctx);
  const result: ToolResultContent = { type: 'tool_result', toolUseId: use.id, content: outcome.content };
  if (outcome.structuredContent !== undefined) result.structuredContent = outcome.structuredContent as Record<string, unknown>;
  if (outcome.isError) result.isError = true;
  return result;
}

function offeredTool(tool: ToolItem, revision: Revision): Record<string, unknown> {
  const { name, title, description, inputSchema } = tool.listing(revision) as Record<string, unknown>;
  const offered: Record<string, unknown> = { name, inputSchema };
  if (title !== undefined) offered.title = title;
  if (description !== undefined) offered.description = description;
  return offered;
}

function isDescription(tool: unknown): tool is SamplingToolDescription {
  return typeof tool === 'object' && tool !== null && 'inputSchema' in tool && !('run' in tool);
}

/** The runnable tools built so far, per server (each runs its tools through its own invoker). */
const built = new WeakMap<ToolHost, { fromClass: WeakMap<Constructor, ToolItem[]>; fromDefinition: WeakMap<SamplingTool, ToolItem> }>();

/** Builds (once per server) the runnable tools of the loop: `@Tool` methods of classes and `SamplingTool`s. */
function runnableTools(host: ToolHost, sources: Array<SamplingTool | Constructor>): Map<string, ToolItem> {
  let cache = built.get(host);
  if (!cache) built.set(host, (cache = { fromClass: new WeakMap(), fromDefinition: new WeakMap() }));
  const byName = new Map<string, ToolItem>();
  for (const source of sources) {
    const tools = typeof source === 'function' ? toolsOfClass(host, cache.fromClass, source) : [toolOfDefinition(host, cache.fromDefinition, source)];
    for (const tool of tools) {
      if (byName.has(tool.name)) throw new SamplingRuleError(`Two sampling tools are named "${tool.name}"`);
      byName.set(tool.name, tool);
    }
  }
  return byName;
}

function toolsOfClass(host: ToolHost, cache: WeakMap<Constructor, ToolItem[]>, provider: Constructor): ToolItem[] {
  let tools = cache.get(provider);
  if (!tools) {
    tools = metadataStore.definitionsOf(provider, 'tool').map((definition) => buildTool(definition, provider, host));
    if (tools.length === 0) throw new SamplingRuleError(`${provider.name} has no @Tool methods to offer to the model`);
    cache.set(provider, tools);
  }
  return tools;
}

/** A SamplingTool becomes a one-method provider, so it runs through the same pipeline as @Tool. */
function toolOfDefinition(host: ToolHost, cache: WeakMap<SamplingTool, ToolItem>, definition: SamplingTool): ToolItem {
  let tool = cache.get(definition);
  if (!tool) {
    const Provider = class SamplingToolProvider {};
    // run is always called as (input, ctx); without an input DTO the input is undefined.
    const run = definition.input ? definition.run : (ctx: Context) => definition.run(undefined, ctx);
    Object.defineProperty(Provider.prototype, 'run', { value: run, writable: true, configurable: true });
    const toolDefinition: ToolDefinition = {
      kind: 'tool',
      target: Provider,
      methodName: 'run',
      options: { name: definition.name, description: definition.description, input: definition.input },
      paramTypes: definition.input ? [definition.input, Context] : [Context],
    };
    tool = buildTool(toolDefinition, Provider, host);
    cache.set(definition, tool);
  }
  return tool;
}
