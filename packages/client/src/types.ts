import type { Implementation, LoggingLevel, Root, SamplingMessage } from '@typemcp/core';

/** The JSON the server answered with; the result types narrow it to the documented fields. */
export type JsonObject = Record<string, unknown>;

/** A JSON-RPC request id. */
export type RequestId = string | number;

/** A tool as `tools/list` lists it. */
export interface ListedTool extends JsonObject {
  name: string;
  title?: string;
  description?: string;
  inputSchema: JsonObject;
  outputSchema?: JsonObject;
  annotations?: JsonObject;
}

/**
 * One block of a tool result's or prompt message's content (`text`, `image`, `audio`,
 * `resource`, `resource_link`); `text` is there for a text block.
 */
export interface ContentBlock extends JsonObject {
  type: string;
  text?: string;
}

/**
 * What `tools/call` answered: the content, the structured result when the tool declares an
 * output schema, and whether it is a tool error.
 */
export interface CallToolResult extends JsonObject {
  content: ContentBlock[];
  structuredContent?: JsonObject;
  isError?: boolean;
}

/** A resource as `resources/list` lists it. */
export interface ListedResource extends JsonObject {
  uri: string;
  name: string;
  mimeType?: string;
}

/** A `skills/list` entry (Skills extension): the skill's `SKILL.md` URI, frontmatter and files. */
export interface ListedSkill extends JsonObject {
  uri: string;
  frontmatter: JsonObject & { name: string; description: string };
  resources: Array<{ uri: string; digest: string; size: number }> | 'dynamic';
}

/** A resource template as `resources/templates/list` lists it. */
export interface ListedResourceTemplate extends JsonObject {
  uriTemplate: string;
  name: string;
  mimeType?: string;
}

/** One item a resource read returned: `text`, or `blob` (base64) for binary content. */
export interface ResourceContents extends JsonObject {
  uri: string;
  mimeType?: string;
  text?: string;
  blob?: string;
}

/** What `resources/read` answered. */
export interface ReadResourceResult extends JsonObject {
  contents: ResourceContents[];
}

/** A prompt as `prompts/list` lists it, with its arguments. */
export interface ListedPrompt extends JsonObject {
  name: string;
  description?: string;
  arguments?: Array<{ name: string; description?: string; required?: boolean }>;
}

/** One message of a rendered prompt. */
export interface PromptMessage extends JsonObject {
  role: 'user' | 'assistant';
  content: ContentBlock;
}

/** What `prompts/get` answered: the prompt's messages. */
export interface GetPromptResult extends JsonObject {
  description?: string;
  messages: PromptMessage[];
}

/**
 * What `completion/complete` completes an argument of: a prompt by name, or a resource
 * template by its uri template.
 */
export type CompletionReference = { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string };

/** What `completion/complete` answered: the suggested values. */
export interface CompleteResult extends JsonObject {
  completion: { values: string[]; total?: number; hasMore?: boolean };
}

/** One page of a list method: the items under the method's key, and the cursor of the next page. */
export interface Page<T> {
  items: T[];
  nextCursor?: string;
}

/** A notification the server sent. */
export interface ReceivedNotification {
  method: string;
  params?: JsonObject;
}

/** One `notifications/progress` of a request: how far it got, out of `total` when known. */
export interface ProgressUpdate {
  progress: number;
  total?: number;
  message?: string;
}

/** The options of one request: cancelling it, its progress, how long to wait. */
export interface RequestOptions {
  /** Aborting sends `notifications/cancelled` and rejects the call with the signal's reason. */
  signal?: AbortSignal;
  /** Asks for progress (a `progressToken` in `_meta`) and receives each notification of it. */
  onProgress?: (update: ProgressUpdate) => void;
  /** How long to wait for the answer; default: the client's `requestTimeoutMs`. A progress notification restarts the wait when `resetTimeoutOnProgress` is set. */
  timeoutMs?: number;
  resetTimeoutOnProgress?: boolean;
  /** HTTP: headers of this request only (over the transport's own). */
  headers?: Record<string, string>;
  /** Entries added to the request's `_meta`. */
  meta?: JsonObject;
  /** Receives the request's id as it is sent (each time, for a request sent again after `input_required`): see `cancelRequest`, `ReceivedInfo.relatedRequestId`. */
  onId?: (id: RequestId) => void;
  /**
   * 2026-07-28: hand an `input_required` result back as it is instead of answering its
   * questions with the handlers and sending the request again (for a caller that asks someone
   * else, as a proxy asks its own client).
   */
  returnInputRequired?: boolean;
}

/** The options of `client.callTool`: a request's, and whether to run the call as a task. */
export interface CallToolOptions extends RequestOptions {
  /**
   * Run the call as a task and wait for its result: the task is created, polled with
   * `tasks/get` (at the server's poll interval) and its result fetched. `ttl` in ms is the
   * lifetime asked for. The client declares what the revision needs (the `tasks` capability,
   * or the tasks extension at 2026-07-28).
   */
  task?: { ttl?: number } | true;
  /** Receives the task as it is created and at each poll. */
  onTask?: (task: TaskStatus) => void;
}

/** A task as `tasks/get` shows it. */
export interface TaskStatus extends JsonObject {
  taskId: string;
  status: 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';
  statusMessage?: string;
}

/** Answers a server-to-client request; what it returns is the result, what it throws an error. */
export type ClientRequestHandler<P extends JsonObject = JsonObject, R extends JsonObject = JsonObject> = (params: P, extra: HandlerExtra) => R | Promise<R>;

/** What a handler knows of the question besides its params. */
export interface HandlerExtra {
  /** The request of the client's that the question belongs to, when the transport or the era says. */
  relatedRequestId?: RequestId;
  /** Aborted when the question no longer needs an answer (the connection closed). */
  signal: AbortSignal;
}

/** The params of `sampling/createMessage` as the server sent them. */
export interface SamplingRequestParams extends JsonObject {
  messages: SamplingMessage[];
  maxTokens: number;
  systemPrompt?: string;
  /** Tools offered to the model (2025-11-25 and later). */
  tools?: Array<{ name: string; title?: string; description?: string; inputSchema: JsonObject }>;
  toolChoice?: { mode?: 'auto' | 'required' | 'none' };
}

/** What the client's model answered. */
export interface SamplingResult extends JsonObject {
  role: 'assistant';
  content: JsonObject | JsonObject[];
  model: string;
  stopReason?: string;
}

/** The params of `elicitation/create` as the server sent them. */
export interface ElicitationRequestParams extends JsonObject {
  message: string;
  /** Absent before 2025-11-25, where every request is a form. */
  mode?: 'form' | 'url';
  /** The form's JSON Schema (form mode). */
  requestedSchema?: JsonObject;
  /** The page to open (url mode). */
  url?: string;
  elicitationId?: string;
}

/** The user's answer to an elicitation. */
export interface ElicitationResult extends JsonObject {
  action: 'accept' | 'decline' | 'cancel';
  content?: JsonObject;
}

/** What a `subscriptions/listen` stream asks for (2026-07-28), or the handshake era's subscriptions. */
export interface ListenFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  resourceSubscriptions?: string[];
}

/** An open subscription: a `subscriptions/listen` stream, or the handshake era's `resources/subscribe` calls. */
export interface Subscription {
  /** The part of the filter the server agreed to honour. */
  readonly honoured: ListenFilter;
  /** Resolves when the subscription ends: `graceful` when the server ended it with a result, `closed` otherwise. */
  readonly ended: Promise<'graceful' | 'closed'>;
  /** Ends it: the stream is cancelled, or each resource unsubscribed. */
  close(): Promise<void>;
}

/** What the server said of itself: `initialize`'s answer, or `server/discover`'s. */
export interface ServerDescription {
  protocolVersion: string;
  serverInfo: Implementation;
  capabilities: JsonObject;
  instructions?: string;
  /** 2026-07-28: every version the server serves (`server/discover`). */
  supportedVersions?: string[];
}

/** Receives every notification the server sends. */
export type NotificationHandler = (notification: ReceivedNotification, info?: { relatedRequestId?: RequestId }) => void;

/**
 * The options of `new Client(…)` and `Client.connect`: the revision spoken, who the client
 * says it is, and the handlers of what the server sends and asks.
 */
export interface ClientOptions {
  /**
   * The protocol revision to speak. Default: the newest handshake revision (`initialize`).
   * A handshake revision asks for that one in `initialize` (the server may answer with another
   * it serves, which the client then speaks if it knows it); `'2026-07-28'` speaks that
   * revision (no handshake: `server/discover`, then `_meta` on every request); `'auto'`
   * discovers first and falls back to `initialize` when the server does not serve 2026-07-28.
   */
  protocolVersion?: string;
  /**
   * Speak `protocolVersion` or nothing: a server that answers `initialize` with another
   * revision fails the connection (`Asked the server for protocol X but it answered Y`), and at
   * 2026-07-28 a -32022 error offering other versions is not taken up. Default false.
   */
  strictVersion?: boolean;
  /** Default `{ name: 'typemcp-client', version: '0.1.0' }`. */
  clientInfo?: Implementation;
  /** Capabilities declared over what the handlers imply (extensions, experimental). */
  capabilities?: JsonObject;
  /** Answers `elicitation/create`; declares elicitation (form and url modes from 2025-11-25; from 2025-06-18). */
  onElicit?: ClientRequestHandler<ElicitationRequestParams, ElicitationResult>;
  /** Answers `sampling/createMessage`; declares sampling (with tools from 2025-11-25). */
  onSample?: ClientRequestHandler<SamplingRequestParams, SamplingResult>;
  /** Answers `roots/list`: the roots, or a function returning them; declares roots. */
  onRoots?: Root[] | (() => Root[] | Promise<Root[]>);
  /**
   * Answers the server's questions that no handler above answers (a method without a handler,
   * or one this client does not know); declares nothing. What it returns is the result, what it
   * throws the error (an McpRequestError keeps its code; anything else is -32603). Without it
   * such a question is answered with -32601.
   */
  onOtherRequest?: (method: string, params: JsonObject, extra: HandlerExtra) => JsonObject | Promise<JsonObject>;
  /** Hears every notification (also: `client.on(method, handler)`). */
  onNotification?: NotificationHandler;
  /** How long a request may wait for its answer (default 60 000 ms). */
  requestTimeoutMs?: number;
  /** Rounds of `input_required` (2026-07-28) a request may take before it fails (default 10). */
  maxInputRounds?: number;
}

export type { Implementation, LoggingLevel, Root };
