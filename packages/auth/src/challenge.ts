import type { AuthChallenge } from '@typemcp/core';

/** The `WWW-Authenticate` value of a refusal (RFC 6750 §3, RFC 9728 §5.1). */
export function bearerChallenge(resourceMetadataUrl: string, challenge: AuthChallenge): string {
  return schemeChallenge('Bearer', resourceMetadataUrl, challenge);
}

/**
 * A challenge to a request without credentials names the scopes to ask for (MCP authorization,
 * scope selection) when the refusal named none; any other challenge is kept as it is.
 */
export function withDefaultScopes(challenge: AuthChallenge, scopes: readonly string[] | undefined): AuthChallenge {
  return challenge.error === undefined && (challenge.scopes ?? []).length === 0 ? { ...challenge, scopes } : challenge;
}

/** One challenge of `scheme` with the parameters of a bearer one (RFC 9449 §7.1 gives DPoP the same), then `extra`. */
export function schemeChallenge(scheme: string, resourceMetadataUrl: string, challenge: Pick<AuthChallenge, 'scopes' | 'description'> & { error?: string }, extra: readonly string[] = []): string {
  const params = [`resource_metadata="${quoted(resourceMetadataUrl)}"`];
  if (challenge.scopes !== undefined && challenge.scopes.length > 0) params.push(`scope="${quoted(challenge.scopes.join(' '))}"`);
  if (challenge.error !== undefined) params.push(`error="${quoted(challenge.error)}"`);
  if (challenge.description !== undefined) params.push(`error_description="${quoted(challenge.description)}"`);
  return `${scheme} ${[...params, ...extra].join(', ')}`;
}

/**
 * The bearer token of a request's `Authorization` header; undefined when there is none. A
 * header of another scheme or a malformed one is a rejected credential (the reason is thrown).
 */
export function bearerToken(authorization: string | string[] | undefined): string | undefined {
  if (authorization === undefined || authorization === '') return undefined;
  if (Array.isArray(authorization)) throw new Error('more than one Authorization header');
  const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(authorization);
  if (!match) throw new Error('the Authorization header must be "Bearer <token>"');
  return match[1];
}

/** RFC 9110 quoted-string content in ASCII: backslash and double quote escaped, controls and other characters replaced. */
function quoted(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f]/g, ' ').replace(/[^\u0020-\u007e]/g, '?').replace(/["\\]/g, '\\$&');
}
