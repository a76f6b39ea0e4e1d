/** JSON-RPC and MCP error codes. Stable: they are part of the wire contract. */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  ConnectionClosed: -32000,
  RequestTimeout: -32001,
  ResourceNotFound: -32002,
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];
