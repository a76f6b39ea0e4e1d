/**
 * A client answered a server-to-client request (elicitation, sampling, roots) with something
 * the protocol or the requested schema does not allow. The message says what was wrong and
 * quotes (truncated) what was received.
 */
export class InvalidClientResponseError extends Error {
  readonly code = 'INVALID_CLIENT_RESPONSE';

  constructor(message: string) {
    super(message);
    this.name = 'InvalidClientResponseError';
  }
}
