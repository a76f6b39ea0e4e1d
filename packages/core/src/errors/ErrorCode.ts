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
  /**
   * The caller may not do this: no or invalid credentials, a missing scope, role or guard.
   * `data.reason` says which; over HTTP it comes with 401 or 403 and `WWW-Authenticate`.
   */
  AccessDenied: -32003,
  /** 2026-07-28: HTTP headers that do not match the body, or a required one missing. */
  HeaderMismatch: -32020,
  /** 2026-07-28: the request needs a client capability its `_meta` did not declare. */
  MissingRequiredClientCapability: -32021,
  /** 2026-07-28: the request names a protocol version this server does not serve. */
  UnsupportedProtocolVersion: -32022,
  /**
   * Too many requests from this caller (draft SEP-3304): `data.retryAfterMs` says when to try
   * again; over HTTP it comes with 429 and `Retry-After`.
   */
  RateLimited: -32023,
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];
