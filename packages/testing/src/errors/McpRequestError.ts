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
