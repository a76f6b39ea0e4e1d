import type { Constructor } from '../metadata';

/** Content of sampling messages (MCP `SamplingMessageContentBlock`). */
export interface TextContent {
  type: 'text';
  text: string;
  [key: string]: unknown;
}
/** An image, base64-encoded in `data`. */
export interface ImageContent {
  type: 'image';
  data: string;
  mimeType: string;
  [key: string]: unknown;
}
/** Audio, base64-encoded in `data`. */
export interface AudioContent {
  type: 'audio';
  data: string;
  mimeType: string;
  [key: string]: unknown;
}
/** The model's call of one of the request's tools; a `tool_result` with its `id` answers it. */
export interface ToolUseContent {
  type: 'tool_use';
  id: string;
  name: string;
  input: Record<string, unknown>;
  [key: string]: unknown;
}
/** The result of a tool the model called (`toolUseId`), sent back to it in the next message. */
export interface ToolResultContent {
  type: 'tool_result';
  toolUseId: string;
  content: unknown[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  [key: string]: unknown;
}
/** Any content block of a sampling message. */
export type SamplingContent = TextContent | ImageContent | AudioContent | ToolUseContent | ToolResultContent;

/** One turn of the conversation sent to, or answered by, the client's model. */
export interface SamplingMessage {
  role: 'user' | 'assistant';
  content: SamplingContent | SamplingContent[];
  _meta?: Record<string, unknown>;
}

/**
 * What the server would like of the client's model: name hints and how to weigh cost, speed
 * and intelligence. The client chooses.
 */
export interface ModelPreferences {
  hints?: Array<{ name?: string }>;
  /** 0..1 */
  costPriority?: number;
  /** 0..1 */
  speedPriority?: number;
  /** 0..1 */
  intelligencePriority?: number;
}

/** Whether the model may (`auto`), must (`required`) or must not (`none`) call a tool. */
export interface ToolChoice {
  mode?: 'auto' | 'required' | 'none';
}

/** A tool offered to the client's model as MCP describes it; the caller handles its use. */
export interface SamplingToolDescription {
  name: string;
  description?: string;
  title?: string;
  inputSchema: Record<string, unknown>;
  [key: string]: unknown;
}

/**
 * A tool the server runs itself during the tool loop: a DTO-typed input and a function that
 * gets the request's context `C` (`Context`: see `SamplingTool`, which binds it).
 */
export interface SamplingToolOf<I, C> {
  name: string;
  description?: string;
  /** Input DTO class; its schema is offered to the model and validates what it sends. */
  input?: Constructor<I>;
  run(input: I, ctx: C): unknown;
}

/** A `sampling/createMessage` request as `ctx.sample()` takes it; its runnable tools get the context `C` (see `SampleRequest`). */
export interface SampleRequestOf<C> {
  messages: SamplingMessage[];
  /** Required by the protocol: the most tokens the client's model may produce. */
  maxTokens: number;
  systemPrompt?: string;
  temperature?: number;
  stopSequences?: string[];
  metadata?: Record<string, unknown>;
  modelPreferences?: ModelPreferences;
  /** Values other than "none" need the client's `sampling.context` capability. */
  includeContext?: 'none' | 'thisServer' | 'allServers';
  /**
   * Tools for the model (needs `sampling.tools`). Descriptions alone are sent as they are and
   * the answer returned; `SamplingTool`s or provider classes with `@Tool` methods make the
   * runtime run the whole tool loop.
   */
  tools?: Array<SamplingToolDescription | SamplingToolOf<any, C> | Constructor>;
  toolChoice?: ToolChoice;
  /** Turns of the tool loop at most (default 10); the last one is sent with `toolChoice: none`. */
  maxIterations?: number;
  _meta?: Record<string, unknown>;
}

/** The client model's message (`sampling/createMessage`'s result): what `ctx.sample()` resolves with. */
export interface SampleResult {
  role: 'user' | 'assistant';
  content: SamplingContent | SamplingContent[];
  model: string;
  stopReason?: string;
  _meta?: Record<string, unknown>;
}

/** The tool loop's answer: the final message, and every message of the conversation. */
export interface ToolLoopResult extends SampleResult {
  /** The request's messages, then each assistant turn and each tool-results message. */
  transcript: SamplingMessage[];
  /** Sampling requests the loop sent. */
  iterations: number;
}

/** A root the client exposes (`roots/list`). */
export interface Root {
  uri: string;
  name?: string;
  _meta?: Record<string, unknown>;
}
