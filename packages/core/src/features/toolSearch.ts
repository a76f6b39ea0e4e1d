import { DefinitionError, InvalidParamsError } from '../errors';
import { clip } from '../protocol';
import type { Revision } from '../protocol';
import { TOOL_NAME } from '../items/ToolItem';
import type { ToolItem } from '../items/ToolItem';
import type { Context } from '../runtime/Context';
import type { MethodHandler } from '../runtime/Dispatcher';
import type { Registry } from '../runtime/Registry';
import type { CorePlugin } from '../runtime/plugins';
import { callableBy, toolsFor } from './apps';
import type { FeatureCatalog, FeatureServer } from './rooms';
import { perCaller, visibleTo } from './listFor';
import type { ToolRoutes, ToolsSeam } from './tools';

/** What tool search reads: the tools and their access rules, and the server's routing of the call it runs. */
export type ToolSearchHost = Pick<FeatureCatalog, 'tools' | 'access' | 'appTools'> & Pick<FeatureServer, 'dispatcher' | 'container'>;

/** Options of tool search (`new McpServer({ toolSearch })`). */
export interface ToolSearchOptions {
  /** Tools listed as usual beside the two search tools (by name). */
  pinned?: readonly string[];
  /** The name of the tool that searches (default `search_tools`). */
  searchTool?: string;
  /** The name of the tool that calls a tool found (default `call_tool`). */
  callTool?: string;
  /** The most results a search returns (default 10; a search may ask for fewer, up to 50). */
  maxResults?: number;
}

const MAX_LIMIT = 50;
const MAX_QUERY = 500;

interface Indexed {
  tool: ToolItem;
  /** Term → weight: name 3, title 2, description and argument names 1. */
  terms: Map<string, number>;
}

/**
 * Tool search for servers with very many tools: clients list a search tool, a call tool and
 * the pinned tools; the search ranks the tools the caller may use by the words of their
 * names, titles, descriptions and argument names, rarer words (among those tools) weighing more; the call tool runs one through the whole
 * `tools/call` path (middleware, access rules, validation). The index follows the registry.
 */
export class ToolSearch {
  readonly searchName: string;
  readonly callName: string;
  private readonly pinned: ReadonlySet<string>;
  private readonly maxResults: number;
  private index: { revision: number; listedAt: Revision; entries: Indexed[] } | undefined;

  constructor(options: ToolSearchOptions) {
    const where = 'McpServer: toolSearch';
    this.searchName = options.searchTool ?? 'search_tools';
    this.callName = options.callTool ?? 'call_tool';
    for (const name of [this.searchName, this.callName]) {
      if (typeof name !== 'string' || !TOOL_NAME.test(name)) throw new DefinitionError('INVALID_OPTION', `${where}: tool names must be 1-128 characters of A-Z, a-z, 0-9, "_", "-" or ".", not ${JSON.stringify(name)}`);
    }
    if (this.searchName === this.callName) throw new DefinitionError('INVALID_OPTION', `${where}: searchTool and callTool must differ`);
    if (options.pinned !== undefined && !(Array.isArray(options.pinned) && options.pinned.every((name) => typeof name === 'string'))) {
      throw new DefinitionError('INVALID_OPTION', `${where}: pinned must be a list of tool names`);
    }
    this.pinned = new Set(options.pinned ?? []);
    const max = options.maxResults ?? 10;
    if (!(Number.isInteger(max) && max >= 1 && max <= MAX_LIMIT)) throw new DefinitionError('INVALID_OPTION', `${where}: maxResults must be an integer from 1 to ${MAX_LIMIT}, not ${String(max)}`);
    this.maxResults = max;
  }

  /** Whether `name` is one of the two tools this adds. */
  owns(name: string): boolean {
    return name === this.searchName || name === this.callName;
  }

  /** Refuses a registered tool that takes one of the two names. */
  checkNames(tools: Registry<ToolItem>): void {
    for (const name of [this.searchName, this.callName]) {
      if (tools.has(name)) throw new DefinitionError('DUPLICATE_NAME', `McpServer: toolSearch: a tool named "${name}" is registered; set toolSearch.${name === this.searchName ? 'searchTool' : 'callTool'} to another name`);
    }
  }

  /** The list with tool search: the two tools, then the pinned ones the caller may see, on one page. */
  async list(host: ToolSearchHost, params: Record<string, unknown>, ctx: Context): Promise<Record<string, unknown>> {
    if (params.cursor !== undefined) throw new InvalidParamsError('Invalid cursor: this list has one page');
    const visible = await visibleTo(host, host.tools.list(), ctx);
    const pinned = visible.filter((tool) => this.pinned.has(tool.name));
    const shown = host.appTools ? toolsFor(pinned, ctx) : pinned.map((tool) => tool.listing(ctx.revision));
    if (host.appTools) ctx.hintResult({ cacheScope: 'private' });
    return perCaller({ tools: [this.searchListing(), this.callListing(), ...shown] }, host, ctx);
  }

  /** `tools/call` of one of the two tools. */
  async call(host: ToolSearchHost, toolsCall: MethodHandler, params: Record<string, unknown>, ctx: Context): Promise<Record<string, unknown>> {
    const args = (params.arguments ?? {}) as Record<string, unknown>;
    if (typeof args !== 'object' || args === null || Array.isArray(args)) return errorResult(`Invalid arguments for tool "${String(params.name)}": "arguments" must be an object`);
    return params.name === this.searchName ? this.search(host, args, ctx) : this.callFound(host, toolsCall, args, ctx);
  }

  private async search(host: ToolSearchHost, args: Record<string, unknown>, ctx: Context): Promise<Record<string, unknown>> {
    const { query, limit } = args;
    const unknown = Object.keys(args).filter((key) => key !== 'query' && key !== 'limit');
    if (typeof query !== 'string' || query.trim() === '' || query.length > MAX_QUERY) return errorResult(`Invalid arguments for tool "${this.searchName}": "query" must be a non-empty string of at most ${MAX_QUERY} characters`);
    if (limit !== undefined && !(Number.isInteger(limit) && (limit as number) >= 1 && (limit as number) <= MAX_LIMIT)) return errorResult(`Invalid arguments for tool "${this.searchName}": "limit" must be an integer from 1 to ${MAX_LIMIT}`);
    if (unknown.length > 0) return errorResult(`Invalid arguments for tool "${this.searchName}": unknown property "${clip(unknown[0])}"`);
    const index = this.indexOf(host.tools, ctx.revision);
    // Only what the caller may use: scopes, roles and guards, and apps for clients that show them.
    const visible = new Set(await visibleTo(host, host.tools.list(), ctx));
    const words = termsOf(query);
    // A tool that runs only as a task cannot be called through call_tool: it is not offered.
    const candidates = index.entries.filter((entry) => visible.has(entry.tool) && callableBy(entry.tool, ctx) && !this.owns(entry.tool.name) && entry.tool.taskSupport !== 'required');
    // Word rarity among the tools this caller may use: what it may not see weighs nothing.
    const rarity = new Map(words.map((word) => [word, Math.log(1 + candidates.length / (1 + candidates.filter((entry) => entry.terms.has(word)).length))]));
    const ranked: Array<{ tool: ToolItem; score: number }> = [];
    for (const entry of candidates) {
      let score = 0;
      for (const word of words) {
        const weight = entry.terms.get(word) ?? prefixWeight(entry.terms, word);
        if (weight > 0) score += weight * rarity.get(word)!;
      }
      if (score > 0) ranked.push({ tool: entry.tool, score });
    }
    ranked.sort((a, b) => b.score - a.score || (a.tool.name < b.tool.name ? -1 : 1));
    const found = ranked.slice(0, Math.min((limit as number | undefined) ?? this.maxResults, this.maxResults)).map(({ tool }) => {
      const listing = tool.plainListing(ctx.revision);
      const shown: Record<string, unknown> = { name: tool.name };
      for (const key of ['title', 'description', 'inputSchema']) if (listing[key] !== undefined) shown[key] = listing[key];
      return shown;
    });
    const structured = { tools: found };
    const result: Record<string, unknown> = { content: [{ type: 'text', text: JSON.stringify(structured) }] };
    if (ctx.revision.titlesAndStructuredOutput) result.structuredContent = structured;
    return result;
  }

  private async callFound(host: ToolSearchHost, toolsCall: MethodHandler, args: Record<string, unknown>, ctx: Context): Promise<Record<string, unknown>> {
    const { name } = args;
    if (typeof name !== 'string') return errorResult(`Invalid arguments for tool "${this.callName}": "name" must be the name of a tool that ${this.searchName} found`);
    if (this.owns(name)) return errorResult(`Invalid arguments for tool "${this.callName}": "${name}" is not a tool to call through it`);
    if (host.tools.get(name)?.taskSupport === 'required') return errorResult(`The tool "${name}" runs only as a task: call it with tools/call and a task, not through ${this.callName}`);
    const unknown = Object.keys(args).filter((key) => key !== 'name' && key !== 'arguments');
    if (unknown.length > 0) return errorResult(`Invalid arguments for tool "${this.callName}": unknown property "${clip(unknown[0])}"`);
    // The found tool's own tools/call: middleware again (it sees that tool), access rules, validation.
    const inner: Record<string, unknown> = args.arguments === undefined ? { name } : { name, arguments: args.arguments };
    try {
      return await host.dispatcher.dispatch(toolsCall, 'tools/call', inner, ctx.within(host.container, inner));
    } catch (error) {
      // An unknown or hidden tool is the model's mistake to correct, not a protocol error of this call.
      if (error instanceof InvalidParamsError || (error as { name?: string }).name === 'AccessDeniedError') return errorResult((error as Error).message);
      throw error;
    }
  }

  /** The index of the tools as listed at `revision` (titles are in the newer revisions only). */
  private indexOf(tools: Registry<ToolItem>, revision: Revision) {
    if (this.index?.revision === tools.revision && this.index.listedAt === revision) return this.index;
    const entries = tools.list().map((tool): Indexed => {
      const terms = new Map<string, number>();
      const add = (text: unknown, weight: number) => {
        if (typeof text !== 'string') return;
        for (const term of termsOf(text)) terms.set(term, Math.max(terms.get(term) ?? 0, weight));
      };
      const listing = tool.plainListing(revision);
      add(tool.name, 3);
      add(listing.title, 2);
      add(listing.description, 1);
      for (const property of Object.keys((tool.inputSchema.properties ?? {}) as object)) add(property, 1);
      return { tool, terms };
    });
    return (this.index = { revision: tools.revision, listedAt: revision, entries });
  }

  private searchListing(): Record<string, unknown> {
    return {
      name: this.searchName,
      description: `Searches this server's tools by what they do. Returns the best matches (names, descriptions and input schemas); call one with ${this.callName}.`,
      inputSchema: {
        type: 'object',
        properties: {
          query: { type: 'string', minLength: 1, maxLength: MAX_QUERY, description: 'Words describing the task' },
          limit: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, description: `How many tools at most (default ${this.maxResults})` },
        },
        required: ['query'],
        additionalProperties: false,
      },
    };
  }

  private callListing(): Record<string, unknown> {
    return {
      name: this.callName,
      description: `Calls a tool that ${this.searchName} found, with its arguments.`,
      inputSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', description: 'The tool name' },
          arguments: { type: 'object', description: "The tool's arguments, as its input schema says" },
        },
        required: ['name'],
        additionalProperties: false,
      },
    };
  }
}

/**
 * `core:tool-search`, added when the server has the `toolSearch` option: in front of the tool
 * methods (the tools feature's seam), `tools/list` lists the two search tools and the pinned
 * ones, and `tools/call` answers the two; every other call goes on to the tools.
 */
export function toolSearchPlugin(
  search: ToolSearch,
  catalog: Pick<FeatureCatalog, 'tools' | 'access' | 'appTools'>,
  server: Pick<FeatureServer, 'dispatcher' | 'container'>,
  seam: ToolsSeam,
): CorePlugin {
  const host: ToolSearchHost = {
    tools: catalog.tools,
    access: catalog.access,
    // Whether some tool has a UI changes with the tools: asked each time.
    get appTools() {
      return catalog.appTools;
    },
    dispatcher: server.dispatcher,
    container: server.container,
  };
  return {
    name: 'core:tool-search',
    register() {
      seam.layer((inner) => {
        const routes: ToolRoutes = {
          list: (params, ctx) => search.list(host, params, ctx),
          // call_tool runs the found tool's tools/call as routed, this layer included.
          call: (params, ctx) => (typeof params.name === 'string' && search.owns(params.name) ? search.call(host, routes.call, params, ctx) : inner.call(params, ctx)),
        };
        return routes;
      });
    },
  };
}

/** Lowercase words, camelCase and snake_case split: "getWeather_forecast" → get, weather, forecast. */
function termsOf(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((term) => term.length > 1);
}

/** Half the weight of the best term that starts with `word` (a query of "forecast" finds "forecasts"). */
function prefixWeight(terms: Map<string, number>, word: string): number {
  if (word.length < 3) return 0;
  let best = 0;
  for (const [term, weight] of terms) if (term.startsWith(word) && weight > best) best = weight;
  return best / 2;
}

function errorResult(text: string): Record<string, unknown> {
  return { content: [{ type: 'text', text }], isError: true };
}
