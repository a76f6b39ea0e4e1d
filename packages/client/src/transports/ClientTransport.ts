import type { RequestId } from '../types';

/** How one message is sent. */
export interface ClientSendOptions {
  /** HTTP: headers of this message only (the era's `Mcp-Method` and `Mcp-Name`, a caller's own). */
  headers?: Record<string, string>;
  /** Receives a function that ends what the send holds open (an HTTP response stream), for a cancelled request. */
  cancelWith?: (abort: () => void) => void;
}

/** What a transport knows of a message it hands over. */
export interface ReceivedInfo {
  /** The client's request whose response carried the message (an HTTP response's event stream); stdio and in-memory cannot say. */
  relatedRequestId?: RequestId;
}

/**
 * A connection to a server as the client sees it: messages out, messages in. Core's
 * `Transport` (e.g. one end of `InMemoryTransport.createLinkedPair()`) is one too; the
 * transports of this package (`StreamableHttpClientTransport`, `StdioClientTransport`) add
 * what HTTP and child processes need. A message may arrive as text still to be parsed.
 */
export interface ClientTransport {
  start(): Promise<void>;
  /** A JSON-RPC message (an object; core's transports type it as their `OutgoingMessage`). */
  send(message: object, options?: ClientSendOptions): void | Promise<void>;
  close(): Promise<void>;
  onmessage?: (message: unknown, info?: ReceivedInfo) => void;
  /** The connection is gone (the process exited, the session ended); `error` says why when the transport knows. */
  onclose?: (error?: Error) => void;
  onerror?: (error: Error) => void;
  /** One request's answer will never come (its stream broke off); the connection may live on. */
  onrequestlost?: (id: RequestId, error: Error) => void;
  /** HTTP: headers every later message carries (the protocol version the conversation agreed on). Replaces the previous set. */
  setHeaders?(headers: Record<string, string>): void;
  /** HTTP: listen for what the server sends outside requests (the GET stream of a session). */
  listen?(): void;
  /** HTTP: the session the server gave, when it gave one. */
  readonly sessionId?: string;
}
