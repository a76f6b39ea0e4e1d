/** The server answered a request with a JSON-RPC error. */
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

/** The server sent messages that fail the official schema of the negotiated revision. */
export class SchemaViolationError extends Error {
  override readonly name = 'SchemaViolationError';
}
