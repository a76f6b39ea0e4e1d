/** JSON-RPC 2.0 message shapes as MCP uses them. */

export type RequestId = string | number;

export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: RequestId;
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcResultResponse {
  jsonrpc: '2.0';
  id: RequestId;
  result: Record<string, unknown>;
}

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export interface JsonRpcErrorResponse {
  jsonrpc: '2.0';
  /**
   * Absent when the offending message's id could not be read. MCP 2025-11-25 made the id
   * optional for this case; JSON-RPC's `null` fails every MCP schema, so it is never sent.
   */
  id?: RequestId;
  error: JsonRpcErrorObject;
}

export type JsonRpcResponse = JsonRpcResultResponse | JsonRpcErrorResponse;
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;
/** What a transport may be asked to send: one message, or the answers to a batch. */
export type OutgoingMessage = JsonRpcMessage | JsonRpcMessage[];
