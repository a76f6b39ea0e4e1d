import type { ClientTransport } from '../transports/ClientTransport';
import type { CallToolOptions, CallToolResult, ClientOptions, JsonObject, ListenFilter, LoggingLevel, ReceivedNotification, RequestId, RequestOptions, ServerDescription, Subscription } from '../types';

/** How the link sends one request. */
export interface SendOptions extends RequestOptions {
  /** Receives the request's id as it is sent. */
  onId?: (id: RequestId) => void;
  /** A request that stays open as long as it is needed (`subscriptions/listen`): no timeout. */
  background?: boolean;
}

/**
 * What the client gives its era codec: JSON-RPC as it is (ids, pending requests, progress,
 * cancellation, timeouts, the handlers of the server's questions), nothing of any era.
 */
export interface Link {
  readonly transport: ClientTransport;
  readonly options: Readonly<ClientOptions>;
  /** The client's name and version, as every era sends them. */
  readonly clientInfo: { name: string; version: string };
  /** Sends one request as given and resolves with its result (a JSON-RPC error rejects with McpRequestError). */
  send(method: string, params: JsonObject | undefined, options?: SendOptions): Promise<JsonObject>;
  notify(method: string, params?: JsonObject): Promise<void>;
  /** The client's answer to a question of the server's, from its handlers (McpRequestError -32601 without one). */
  answer(method: string, params: JsonObject, relatedRequestId?: RequestId): Promise<JsonObject>;
  /** Hears the notifications of `method`; returns the function that stops it. */
  on(method: string, handler: (notification: ReceivedNotification) => void): () => void;
  /** Tells the server a request of the client's is cancelled, and stops waiting for it. */
  cancel(id: RequestId, reason: string): Promise<void>;
}

/**
 * The client half of one era: how a conversation starts (`initialize`, or `server/discover`),
 * what every request carries (a session, or `_meta` and the HTTP headers that mirror it), how
 * results come back (`input_required` answered with the handlers and retried), and the era's
 * own ways for the log level, subscriptions and tasks.
 */
export interface ClientEra {
  readonly protocolVersion: string;
  /** True when requests carry their context themselves (no handshake, no session). */
  readonly stateless: boolean;
  readonly server: ServerDescription;
  /** The capabilities the client declares in this era. */
  readonly capabilities: JsonObject;
  request(method: string, params: JsonObject | undefined, options?: SendOptions): Promise<JsonObject>;
  setLogLevel(level: LoggingLevel): Promise<void>;
  /** `ping`, or where the era has none (2026-07-28) `server/discover`. */
  ping(options?: SendOptions): Promise<void>;
  listen(filter: ListenFilter): Promise<Subscription>;
  callToolAsTask(name: string, args: JsonObject | undefined, options: CallToolOptions): Promise<CallToolResult>;
}
