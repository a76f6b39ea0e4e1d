/** JSON-RPC 2.0 message shapes as MCP uses them. */

export type RequestId = string | number;

/** A request: the peer answers it with a response of the same `id`. */
export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: RequestId;
  method: string;
  params?: Record<string, unknown>;
}

/** A notification: a message without an `id`, never answered. */
export interface JsonRpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: Record<string, unknown>;
}

/** The answer to a request that succeeded. */
export interface JsonRpcResultResponse {
  jsonrpc: '2.0';
  id: RequestId;
  result: Record<string, unknown>;
}

/** Why a request failed: a JSON-RPC or MCP error code, a message, and any data. */
export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/** The answer to a request that failed. */
export interface JsonRpcErrorResponse {
  jsonrpc: '2.0';
  /**
   * Absent when the offending message's id could not be read. MCP 2025-11-25 made the id
   * optional for this case; JSON-RPC's `null` fails every MCP schema, so it is never sent.
   */
  id?: RequestId;
  error: JsonRpcErrorObject;
}

/** The answer to a request: a result or an error. */
export type JsonRpcResponse = JsonRpcResultResponse | JsonRpcErrorResponse;
/** Any single JSON-RPC message either side sends. */
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;
/** What a transport may be asked to send: one message, or the answers to a batch. */
export type OutgoingMessage = JsonRpcMessage | JsonRpcMessage[];
