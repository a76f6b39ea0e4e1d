import { TypeGenerator, propertyKey } from './schemaToTypes';
import type { JsonSchema } from './schemaToTypes';

/** A tool as `tools/list` lists it: what the types are made of. */
export interface ListedToolSchema {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
}

/** The options of `toolsModule` (`typemcp client generate`): what the module's header says. */
export interface ToolsModuleOptions {
  /** Who the types describe, for the header: `weather 0.1.0`. */
  server?: string;
}

/**
 * The `typed()` helper and its types, written into every generated module so that it imports
 * nothing: what `typed.ts` of `@typemcp/cli` exports, less the inference from provider classes.
 */
const RUNTIME = `/** What \`typed()\` needs of a client: any MCP client with \`callTool(name, args, options)\`. */
export interface ToolCaller {
  callTool(name: string, args?: Record<string, unknown>, options?: unknown): Promise<{ content: unknown[]; structuredContent?: Record<string, unknown>; isError?: boolean }>;
}

/** One block of a tool result's content (text, image, audio, resource, resource_link). */
export interface ContentBlock {
  type: string;
  text?: string;
  [key: string]: unknown;
}

/** A \`tools/call\` result, as any tool answers. */
export interface CallToolResult {
  content: ContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
}

/** The result of a tool with an output schema: \`structuredContent\` is its output, except in an error result. */
export type ToolResult<Output> =
  | (Omit<CallToolResult, 'structuredContent' | 'isError'> & { isError?: false; structuredContent: Output })
  | (Omit<CallToolResult, 'structuredContent' | 'isError'> & { isError: true; structuredContent?: undefined });

type InputOf<Entry> = Entry extends { input: infer Input } ? Input : Record<string, never>;
type ResultOf<Entry> = Entry extends { output: infer Output } ? ToolResult<Output> : CallToolResult;
type ArgumentsOf<Input> = {} extends Input ? [args?: Input, options?: unknown] : [args: Input, options?: unknown];

/** \`tools.<name>(args, options?)\` for each tool. */
export type TypedTools<T = Tools> = {
  [Name in keyof T & string]: (...params: ArgumentsOf<InputOf<T[Name]>>) => Promise<ResultOf<T[Name]>>;
};

export interface TypedClient<T = Tools> {
  /** Each tool as a method: \`client.tools.forecast({ city })\`. */
  readonly tools: TypedTools<T>;
  /** A tool by name, for names that are not identifiers (or \`then\`). */
  call<Name extends keyof T & string>(name: Name, ...params: ArgumentsOf<InputOf<T[Name]>>): Promise<ResultOf<T[Name]>>;
}

/**
 * Typed calls through \`client\`: \`typed(client).tools.<name>(args)\`. The arguments go to
 * \`client.callTool\` as they are and its result comes back as it is: the types say what the
 * server declared, nothing checks them at run time.
 */
export function typed<T = Tools>(client: ToolCaller): TypedClient<T> {
  const call = (name: string, args?: Record<string, unknown>, options?: unknown) => client.callTool(name, args, options);
  // A promise's \`then\` is looked up on whatever is awaited: \`tools\` must not look like one.
  const tools = new Proxy(Object.create(null) as object, {
    get: (_, name) => (typeof name === 'string' && name !== 'then' ? (args?: Record<string, unknown>, options?: unknown) => call(name, args, options) : undefined),
  });
  return { tools, call } as unknown as TypedClient<T>;
}
`;

/**
 * A TypeScript module for a server's tools: per tool `<Name>Input` and, with an output schema,
 * `<Name>Output` (with the types of their `$defs`), the `Tools` map and `typed()`.
 */
export function toolsModule(tools: ListedToolSchema[], options: ToolsModuleOptions = {}): string {
  const generator = new TypeGenerator();
  // The map's own names first, so that no $defs type takes them.
  for (const name of ['Tools', 'ToolCaller', 'ContentBlock', 'CallToolResult', 'ToolResult', 'TypedTools', 'TypedClient', 'InputOf', 'ResultOf', 'ArgumentsOf']) generator.uniqueName(name);
  const entries: string[] = [];
  for (const tool of [...tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const input = generator.add(`${tool.name}Input`, tool.inputSchema as JsonSchema);
    const output = tool.outputSchema ? generator.add(`${tool.name}Output`, tool.outputSchema as JsonSchema) : undefined;
    const doc = [tool.title, tool.description].filter((text): text is string => typeof text === 'string' && text.trim() !== '').map((text) => text.replace(/\*\//g, '*\\/'));
    const comment = doc.length === 0 ? '' : doc.length === 1 && !doc[0].includes('\n') ? `  /** ${doc[0]} */\n` : `  /**\n${doc.flatMap((text) => text.split('\n')).map((line) => `   *${line ? ` ${line}` : ''}`).join('\n')}\n   */\n`;
    entries.push(`${comment}  ${propertyKey(tool.name)}: { input: ${input}${output ? `; output: ${output}` : ''} };`);
  }
  const header = `// The tools of ${options.server ?? 'an MCP server'}, written by \`typemcp client generate\`: run it again rather than edit this file.\n`;
  const map = `/** Each tool: its arguments (\`input\`) and, when it has an output schema, its structured result (\`output\`). */\nexport interface Tools {\n${entries.join('\n')}\n}\n`;
  return `${header}\n${generator.declarations()}\n${map}\n${RUNTIME}`;
}
