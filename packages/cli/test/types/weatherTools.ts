// The tools of weather 0.1.0, written by `typemcp client generate`: run it again rather than edit this file.

export type ConvertTemperatureInput = {
  /** The temperature to convert */
  value: number;
  /** Unit of "value" */
  from: "celsius" | "fahrenheit";
  /** Unit to convert to */
  to: "celsius" | "fahrenheit";
};

export type ForecastInput = {
  /** City name, e.g. "Paris" */
  city: string;
  /** Number of days to forecast (1-14, default 3) */
  days?: number;
  /** Unit for temperatures (default celsius) */
  unit?: "celsius" | "fahrenheit";
};

export type ForecastOutput = {
  city: string;
  unit: "celsius" | "fahrenheit";
  days: {
    /** ISO date, YYYY-MM-DD */
    date: string;
    high: number;
    low: number;
    condition: string;
    /** Chance of precipitation in percent */
    precipitationChance: number;
  }[];
};

export type WhoamiInput = Record<string, never>;

/** Each tool: its arguments (`input`) and, when it has an output schema, its structured result (`output`). */
export interface Tools {
  /** Convert a temperature between Celsius and Fahrenheit */
  convert_temperature: { input: ConvertTemperatureInput };
  /** Daily weather forecast for a city */
  forecast: { input: ForecastInput; output: ForecastOutput };
  /** Say which client is asking (shows the request Context) */
  whoami: { input: WhoamiInput };
}

/** What `typed()` needs of a client: any MCP client with `callTool(name, args, options)`. */
export interface ToolCaller {
  callTool(name: string, args?: Record<string, unknown>, options?: unknown): Promise<{ content: unknown[]; structuredContent?: Record<string, unknown>; isError?: boolean }>;
}

/** One block of a tool result's content (text, image, audio, resource, resource_link). */
export interface ContentBlock {
  type: string;
  text?: string;
  [key: string]: unknown;
}

/** A `tools/call` result, as any tool answers. */
export interface CallToolResult {
  content: ContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
}

/** The result of a tool with an output schema: `structuredContent` is its output, except in an error result. */
export type ToolResult<Output> =
  | (Omit<CallToolResult, 'structuredContent' | 'isError'> & { isError?: false; structuredContent: Output })
  | (Omit<CallToolResult, 'structuredContent' | 'isError'> & { isError: true; structuredContent?: undefined });

type InputOf<Entry> = Entry extends { input: infer Input } ? Input : Record<string, never>;
type ResultOf<Entry> = Entry extends { output: infer Output } ? ToolResult<Output> : CallToolResult;
type ArgumentsOf<Input> = {} extends Input ? [args?: Input, options?: unknown] : [args: Input, options?: unknown];

/** `tools.<name>(args, options?)` for each tool. */
export type TypedTools<T = Tools> = {
  [Name in keyof T & string]: (...params: ArgumentsOf<InputOf<T[Name]>>) => Promise<ResultOf<T[Name]>>;
};

export interface TypedClient<T = Tools> {
  /** Each tool as a method: `client.tools.forecast({ city })`. */
  readonly tools: TypedTools<T>;
  /** A tool by name, for names that are not identifiers (or `then`). */
  call<Name extends keyof T & string>(name: Name, ...params: ArgumentsOf<InputOf<T[Name]>>): Promise<ResultOf<T[Name]>>;
}

/**
 * Typed calls through `client`: `typed(client).tools.<name>(args)`. The arguments go to
 * `client.callTool` as they are and its result comes back as it is: the types say what the
 * server declared, nothing checks them at run time.
 */
export function typed<T = Tools>(client: ToolCaller): TypedClient<T> {
  const call = (name: string, args?: Record<string, unknown>, options?: unknown) => client.callTool(name, args, options);
  // A promise's `then` is looked up on whatever is awaited: `tools` must not look like one.
  const tools = new Proxy(Object.create(null) as object, {
    get: (_, name) => (typeof name === 'string' && name !== 'then' ? (args?: Record<string, unknown>, options?: unknown) => call(name, args, options) : undefined),
  });
  return { tools, call } as unknown as TypedClient<T>;
}
