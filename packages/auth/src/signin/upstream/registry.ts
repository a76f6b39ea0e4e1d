import { AccessDeniedError } from '@typemcp/core';
import type { Principal } from '@typemcp/core';

/** What gives the upstream access token of an MCP grant: a `signIn` with an upstream. */
export interface UpstreamTokenSource {
  /** The provider the sign-in uses, compared by identity only (this file names no provider type). */
  readonly provider: object;
  accessToken(grantId: string): Promise<string>;
}

/** The sign-ins with an upstream in this process, by issuer: an access token's `iss` finds its own. */
const sources = new Map<string, UpstreamTokenSource>();

/** Adds a source; the returned function removes it (the server closed). */
export function registerUpstreamSource(issuer: string, source: UpstreamTokenSource): () => void {
  sources.set(issuer, source);
  return () => {
    if (sources.get(issuer) === source) sources.delete(issuer);
  };
}

/**
 * The signed-in user's access token at the upstream provider, refreshed when it expired, for
 * a tool to call the provider's APIs as the user: `await upstreamToken(ctx)`. Found by the
 * caller's token (its issuer and grant, `sid`), so only a request of that sign-in gets it.
 * Keep it inside the tool: never log it or put it in a result.
 *
 * Rejects with `AccessDeniedError('invalid_token')` when the caller did not sign in through
 * an upstream provider of this process, or that sign-in ended (the client signs in again).
 */
export async function upstreamToken(ctx: { readonly principal?: Principal }, provider?: object): Promise<string> {
  const claims = ctx.principal?.claims ?? {};
  const source = typeof claims.iss === 'string' ? sources.get(claims.iss) : undefined;
  if (source === undefined || typeof claims.sid !== 'string' || (provider !== undefined && source.provider !== provider)) {
    throw new AccessDeniedError('invalid_token', 'This request was not signed in through an upstream identity provider');
  }
  return source.accessToken(claims.sid);
}
