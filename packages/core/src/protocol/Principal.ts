/**
 * Who sent a request, as authentication established it (`ctx.principal`). The same in both
 * protocol eras: over HTTP it is the request's own credentials, so a refreshed token is seen
 * on the next request.
 */
export interface Principal {
  /** A stable id of the user or client (a JWT's `sub`). Binds sessions and 2026-07-28 `requestState`. */
  readonly subject: string;
  /** The OAuth scopes granted to these credentials. */
  readonly scopes: readonly string[];
  /** Roles the credentials carry, for `@Roles`; none when left out. */
  readonly roles?: readonly string[];
  /** Every claim of the verified credentials. */
  readonly claims: Readonly<Record<string, unknown>>;
}
