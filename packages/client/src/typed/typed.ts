import type { Context } from '@typemcp/core';
import type { CallToolOptions, CallToolResult, ContentBlock } from '../types';

/**
 * Typed tool calls over any MCP client with `callTool(name, args, options)`.
 *
 * A tool map says, per tool name, the arguments (`input`) and, when the tool has an output
 * schema, its structured result (`output`): `typemcp client generate` writes one from a
 * server's listing (with a `typed()` of its own, so that the module imports nothing), and
 * `ToolsOf<typeof Provider>` infers one from a provider class.
 */

/** What `typed()` needs of a client: `Client`, or any with this `callTool`. */
export interface ToolCaller {
  callTool(name: string, args?: Record<string, unknown>, options?: CallToolOptions): Promise<{ content: unknown[]; structuredContent?: Record<string, unknown>; isError?: boolean }>;
}

/** What every `tools/call` result has. */
interface ResultFields {
  content: ContentBlock[];
  _meta?: Record<string, unknown>;
}

/**
 * The result of a tool with an output schema: `structuredContent` is its output, except in an
 * error result (`isError: true`), which has none.
 */
export type ToolResult<Output> = (ResultFields & { isError?: false; structuredContent: Output }) | (ResultFields & { isError: true; structuredContent?: undefined });

/** Per tool name: `input`, its arguments; `output`, its structured result when it has one. */
export type ToolMap = { [name: string]: { input: unknown; output?: unknown } };

/** No arguments: a tool without input. */
export type NoArguments = Record<string, never>;

type InputOf<Entry> = Entry extends { input: infer Input } ? Input : NoArguments;
type ResultOf<Entry> = Entry extends { output: infer Output }
  ? ToolResult<Output>
  : Entry extends { output?: infer Output }
    ? ResultFields & { isError?: boolean; structuredContent?: Output }
    : CallToolResult;
/** The arguments may be left out when no property is required. */
type ArgumentsOf<Input> = {} extends Input ? [args?: Input, options?: CallToolOptions] : [args: Input, options?: CallToolOptions];

/** A map of tools, or provider classes whose methods `ToolsOf` reads. */
type MapOf<T> = [T] extends [abstract new (...args: any) => any] ? ToolsOf<T> : T;

/** `tools.<name>(args, options?)` for each tool of the map. */
export type TypedTools<T> = {
  [Name in keyof MapOf<T> & string]: (...params: ArgumentsOf<InputOf<MapOf<T>[Name]>>) => Promise<ResultOf<MapOf<T>[Name]>>;
};

/** What `typed()` returns: the tools of `T` as typed methods. */
export interface TypedClient<T> {
  /** Each tool as a method: `client.tools.add_bookmark({ url })`. */
  readonly tools: TypedTools<T>;
  /** A tool by name, for names that are not identifiers (or `then`). */
  call<Name extends keyof MapOf<T> & string>(name: Name, ...params: ArgumentsOf<InputOf<MapOf<T>[Name]>>): Promise<ResultOf<MapOf<T>[Name]>>;
}

/**
 * Typed calls through `client`: `typed<Tools>(client).tools.forecast({ city: 'Paris' })`, where
 * `Tools` is a generated map, `ToolsOf<typeof Provider>`, or `typeof Provider` itself. The
 * arguments go to `client.callTool` as they are, and its result comes back as it is: the
 * types say what the server declared, nothing checks them at run time.
 */
export function typed<T>(client: ToolCaller): TypedClient<T> {
  const call = (name: string, args?: Record<string, unknown>, options?: CallToolOptions) => client.callTool(name, args, options);
  // A promise's `then` is looked up on whatever is awaited: `tools` must not look like one.
  const tools = new Proxy(Object.create(null) as object, {
    get: (_, name) => (typeof name === 'string' && name !== 'then' ? (args?: Record<string, unknown>, options?: CallToolOptions) => call(name, args, options) : undefined),
  });
  return { tools, call } as unknown as TypedClient<T>;
}

/**
 * A value as it travels in JSON: a string enum as its values, a `Date` as a string, methods
 * left out, each level alike.
 */
export type Wire<T> = T extends string
  ? `${T}`
  : T extends number | boolean | null | undefined
    ? T
    : T extends Date
      ? string
      : T extends readonly (infer Item)[]
        ? Wire<Item>[]
        : T extends (...args: any[]) => unknown
          ? never
          : T extends object
            ? { [Key in keyof T as T[Key] extends (...args: any[]) => unknown ? never : Key]: Wire<T[Key]> }
            : unknown;

type IsAny<T> = 0 extends 1 & T ? true : false;

/** The arguments of a tool method: its first parameter that is not the Context, as JSON. */
type InputOfParameters<Parameters extends readonly unknown[]> = Parameters extends readonly []
  ? NoArguments
  : Parameters extends readonly [(infer First)?, ...infer Rest]
    ? IsAny<First> extends true
      ? Record<string, unknown>
      : [NonNullable<First>] extends [Context]
        ? InputOfParameters<Rest>
        : Wire<NonNullable<First>>
    : NoArguments;

/** What a method's return value makes of the result: an object may be its structured output. */
type OutputOfReturn<Returned> = [Returned] extends [string | number | boolean | void | null | undefined | Uint8Array | { content: unknown[] }]
  ? {}
  : { output?: Wire<Exclude<Returned, string | number | boolean | void | null | undefined | Uint8Array>> };

type ToolOfMethod<Method> = Method extends (...args: infer Parameters) => infer Returned ? { input: InputOfParameters<Parameters> } & OutputOfReturn<Awaited<Returned>> : never;

type UnionToIntersection<U> = (U extends unknown ? (each: U) => void : never) extends (all: infer I) => void ? I : never;

/**
 * The tools of provider classes, read from their types (type-only: nothing of the server is
 * loaded): each public method by its name, its arguments the first parameter that is not the
 * Context (a DTO as JSON carries it), an object it returns as a structured result that may be
 * there (`@Tool({ output })` sends it; without `output` it is text only). What the types do not
 * show: a `@Tool({ name })` rename, which methods are tools, `@Tool({ input })` on a method
 * without an input parameter, names a mount or a transform gives.
 */
export type ToolsOf<Providers> = UnionToIntersection<
  Providers extends abstract new (...args: any) => infer Instance
    ? { [Name in keyof Instance as Name extends string ? (Instance[Name] extends (...args: any[]) => unknown ? Name : never) : never]: ToolOfMethod<Instance[Name]> }
    : never
>;
