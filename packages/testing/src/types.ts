import type { HANDSHAKE_VERSIONS, Implementation, MODERN_VERSIONS, Principal, Root, SamplingMessage } from '@typemcp/core';
import type { JsonObject, ProgressUpdate } from '@typemcp/client';

/** The results and notifications as the client reads them: the same types as `@typemcp/client`'s. */
export type { JsonObject, ListedTool, ContentBlock, CallToolResult, ListedResource, ListedSkill, ListedResourceTemplate, ResourceContents, ReadResourceResult, ListedPrompt, PromptMessage, GetPromptResult, CompletionReference, CompleteResult, ReceivedNotification, ProgressUpdate } from '@typemcp/client';

/** The options of one request: cancelling it, its progress, how long to wait. */
export interface RequestOptions {
  /** Aborting sends `notifications/cancelled` and rejects the call. */
  signal?: AbortSignal;
  /** Asks for progress (a `progressToken` in `_meta`) and receives each notification. */
  onprogress?: (update: ProgressUpdate) => void;
  /** Default: the client's `requestTimeoutMs`. */
  timeoutMs?: number;
}

/** Answers a server-to-client request; what it returns is the result, what it throws an error. */
export type ClientRequestHandler<P extends JsonObject = JsonObject> = (params: P) => JsonObject | Promise<JsonObject>;

/** The params of `sampling/createMessage` as the server sent them. */
export interface SamplingRequestParams extends JsonObject {
  messages: SamplingMessage[];
  maxTokens: number;
  systemPrompt?: string;
  /** Tools offered to the model (2025-11-25 and later). */
  tools?: Array<{ name: string; title?: string; description?: string; inputSchema: JsonObject }>;
  toolChoice?: { mode?: 'auto' | 'required' | 'none' };
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

/** What a `subscriptions/listen` stream asks for (2026-07-28). */
export interface ListenFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  resourceSubscriptions?: string[];
}

/** An open `subscriptions/listen` stream. */
export interface Subscription {
  /** The part of the filter the server agreed to honour. */
  readonly honoured: ListenFilter;
  /** Resolves when the stream ends: `graceful` when the server ended it with a result, `closed` otherwise. */
  readonly ended: Promise<'graceful' | 'closed'>;
  /** Cancels the stream. */
  close(): Promise<void>;
}

/**
 * The options of `createTestClient` and `TestClient.connect`: the revision spoken, who the
 * client says it is, and the fakes that answer the server's questions.
 */
export interface TestClientOptions {
  /**
   * Protocol version; default: the latest handshake version, asked for in `initialize`.
   * `'2026-07-28'` speaks that revision: no handshake, `_meta` on every request, `input_required`
   * answered with the fakes. Any other string is sent as given (to test how a server answers a
   * version it does not serve).
   */
  protocolVersion?: (typeof HANDSHAKE_VERSIONS)[number] | (typeof MODERN_VERSIONS)[number] | (string & {});
  /** Default `{ name: 'typemcp-test-client', version: '0.0.0' }`. */
  clientInfo?: Implementation;
  /** Fake for `sampling/createMessage`; declares the sampling capability (with tools from 2025-11-25). */
  sampling?: ClientRequestHandler<SamplingRequestParams>;
  /** Fake for `elicitation/create`; declares elicitation (form and url modes from 2025-11-25; from 2025-06-18). */
  elicitation?: ClientRequestHandler<ElicitationRequestParams>;
  /** Fake for `roots/list`: the roots, or a function returning them; declares roots. */
  roots?: Root[] | (() => Root[] | Promise<Root[]>);
  /**
   * Validate every message the server sends against the official schema of the negotiated
   * revision (default true). A violation fails the call it answers, or the next call.
   */
  schemaCheck?: boolean;
  /** How long a request may wait for its answer (default 10 000 ms). */
  requestTimeoutMs?: number;
  /**
   * Extensions the client declares in `capabilities.extensions` (every version), e.g.
   * `{ 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } }` for a
   * client that shows MCP Apps.
   */
  extensions?: JsonObject;
  /**
   * The caller the server sees (`ctx.principal`), as if authenticated: what `@Scopes`,
   * `@Roles` and `@Guard` check. Default: an anonymous caller.
   */
  principal?: Principal;
}


