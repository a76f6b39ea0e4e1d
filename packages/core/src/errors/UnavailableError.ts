import { brand } from './brand';

/**
 * Something the server depends on cannot answer now (an authorization server whose keys a
 * token needs, a store): the request is refused with HTTP 503 and `Retry-After`, and the
 * message, which says why, goes to the server's `onError`, not to the client. An
 * `Authentication` throws it when it cannot check a token for a reason that is not the token's.
 */
export class UnavailableError extends Error {
  readonly code = 'UNAVAILABLE';

  constructor(
    message: string,
    /** When to try again, in seconds (`Retry-After`). */
    readonly retryAfterSec = 30,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'UnavailableError';
  }
}

brand(UnavailableError, 'UnavailableError');
