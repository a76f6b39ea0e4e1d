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
  declare readonly data: { reason: AccessDeniedReason; scopes?: string[] };

  constructor(
    readonly reason: AccessDeniedReason,
    message: string,
    options: { scopes?: readonly string[] } = {},
  ) {
    super(ErrorCode.AccessDenied, message, options.scopes === undefined ? { reason } : { reason, scopes: [...options.scopes] });
  }
}

brand(AccessDeniedError, 'AccessDeniedError');
