import { brand } from './brand';
import { ErrorCode } from './ErrorCode';
import { McpError } from './McpError';

/**
 * Why a caller was refused. `unauthenticated`: no credentials; `invalid_token`: credentials
 * that failed verification; both are HTTP 401. `insufficient_scope`: a scope is missing, and
 * asking for it can help (HTTP 403 with a step-up challenge). `forbidden`: a role or guard
 * refused; new credentials with more scopes would not help (HTTP 403).
 */
export type AccessDeniedReason = 'unauthenticated' | 'invalid_token' | 'insufficient_scope' | 'forbidden';

/**
 * The caller may not do what it asked (-32003). Thrown by the runtime for `@Scopes`, `@Roles`,
 * `@Guard` and authentication failures; an authenticator throws it with `invalid_token` for
 * credentials it rejects. `data` carries the reason and, for a scope step-up, the scopes to
 * ask for: those already granted plus the missing ones.
 */
export class AccessDeniedError extends McpError {
  declare readonly data: { reason: AccessDeniedReason; scopes?: string[]; challenge?: Record<string, string> };

  /**
   * `options.challenge`: parameters an authentication passes to its own challenge through the
   * refusal (`AuthChallenge.params`), e.g. an error code its scheme defines; the core does not
   * read them.
   */
  constructor(
    readonly reason: AccessDeniedReason,
    message: string,
    options: { scopes?: readonly string[]; challenge?: Readonly<Record<string, string>> } = {},
  ) {
    const data: AccessDeniedError['data'] = { reason };
    if (options.scopes !== undefined) data.scopes = [...options.scopes];
    if (options.challenge !== undefined) data.challenge = { ...options.challenge };
    super(ErrorCode.AccessDenied, message, data);
  }
}

brand(AccessDeniedError, 'AccessDeniedError');
