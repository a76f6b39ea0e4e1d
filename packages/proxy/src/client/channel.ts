import type { RequestId } from '@typemcp/core';

/** A JSON-RPC message as it travels. */
export type JsonRpcMessage = Record<string, unknown>;

/** How one message is sent. */
export interface SendOptions {
  /** Receives a function that ends what the send holds open (an HTTP response stream), for a cancelled request. */
  cancelWith?: (abort: () => void) => void;
  /** Headers of this message only (HTTP): the era's (`Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`, from the client) and the caller's, as the proxy's `headers` option gives them. */
  headers?: Record<string, string>;
}

/**
 * A connection to the upstream server as the client sees it: messages out, messages in. A
 * message that arrives on a request's own stream (an HTTP response's SSE) names that request
 * (`related`); stdio cannot say, and passes none.
 */
export interface ClientChannel {
  start(): Promise<void>;
  /** Sends one message; a failure rejects (or throws). */
  send(message: JsonRpcMessage, options?: SendOptions): void | Promise<void>;
  /** Ends the connection; the upstream is told where the transport can tell it (HTTP DELETE). */
  close(): Promise<void>;
  onmessage?: (message: JsonRpcMessage, related?: RequestId) => void;
  /** One request's answer will never come (its stream broke off); the connection may live on. */
  onrequestlost?: (id: RequestId, error: Error) => void;
  /** The connection is gone (the process exited, the session expired); `error` says why. */
  onclose?: (error: Error) => void;
  /** HTTP: the headers every later message carries (`MCP-Protocol-Version` once the revision is agreed), as the client gives them. */
  setHeaders?(headers: Record<string, string>): void;
  /**
   * Whether requests are waiting for answers: while they are, the channel keeps the process
   * alive (a child process's pipes); otherwise it does not.
   */
  hold?(waiting: boolean): void;
  /** Handshake era: listen for what the server sends outside requests (HTTP opens its GET stream). */
  listen?(): void;
}
