/** The server sent messages that fail the official schema of the negotiated revision. */
export class SchemaViolationError extends Error {
  override readonly name = 'SchemaViolationError';

  constructor(
    /** One entry per invalid message: the message, what it answered, and each failing path. */
    readonly violations: readonly string[],
  ) {
    super(`The server sent ${violations.length} invalid message(s):\n${violations.join('\n')}`);
  }
}
