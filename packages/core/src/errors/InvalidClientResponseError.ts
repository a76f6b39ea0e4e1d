import { brand } from './brand';
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

  /** `Invalid <request> result from the client: <problem>; received <what it sent, shortened>`. */
  static about(request: string, problem: string, received: unknown): InvalidClientResponseError {
    return new InvalidClientResponseError(`Invalid ${request} result from the client: ${problem}; received ${preview(received)}`);
  }
}

const PREVIEW_LENGTH = 300;

/** A short rendering of what a client sent. */
function preview(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = Object.prototype.toString.call(value);
  }
  return text.length > PREVIEW_LENGTH ? `${text.slice(0, PREVIEW_LENGTH)}…` : text;
}

brand(InvalidClientResponseError, 'InvalidClientResponseError');
