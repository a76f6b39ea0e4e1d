/** The server answered a request with a JSON-RPC error: `code` and `data` are the server's. */
export class McpRequestError extends Error {
  override readonly name = 'McpRequestError';

  constructor(
    readonly method: string,
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(`${method} failed with ${code}: ${message}`);
  }
}

/** A request got no answer in time (`timeoutMs`); the server was told it is cancelled. */
export class RequestTimeoutError extends Error {
  override readonly name = 'RequestTimeoutError';

  constructor(
    readonly method: string,
    readonly timeoutMs: number,
  ) {
    super(`${method} got no answer within ${timeoutMs} ms`);
  }
}

/** The connection is gone (closed by the client, the server or the transport): nothing more will come. */
export class ConnectionClosedError extends Error {
  override readonly name = 'ConnectionClosedError';
}
