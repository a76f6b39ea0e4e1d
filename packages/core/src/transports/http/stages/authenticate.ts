import type { AuthChallenge, Authentication } from '../../../access';
import { AccessDeniedError, ErrorCode, UnavailableError } from '../../../errors';
import type { HttpServerHost, StreamableHttpOptions } from '../endpoint';
import type { RefusalHead } from '../Exchange';
import { HEADER_VALUE, HttpError } from '../HttpReply';
import type { StageRun } from '../pipeline';
import type { StagedRequest } from '../StagedRequest';
import { rateLimitedHead } from '../rateLimited';

type NamePrincipal = NonNullable<StreamableHttpOptions['principal']>;

/**
 * `authenticate`: the caller of a request, from the authentication service a plugin provides,
 * else from the handler's `principal` option; without either, no one.
 */
export function authenticate(host: HttpServerHost, principalOption: NamePrincipal | undefined): StageRun {
  return (request) => {
    const auth = host.authentication;
    if (auth) return byAuthentication(auth, request);
    if (principalOption) return byOption(principalOption, request);
    request.principal = undefined;
    return undefined;
  };
}

async function byAuthentication(auth: Authentication, request: StagedRequest): Promise<undefined> {
  let principal;
  try {
    principal = await auth.authenticate(request.incoming);
  } catch (error) {
    // The authentication reports its own failures; the client learns only that there was one.
    if (error instanceof AccessDeniedError) throw error;
    if (error instanceof UnavailableError) {
      throw new HttpError(503, 'Service Unavailable: the credentials cannot be checked now; try again later', -32000, { 'retry-after': String(error.retryAfterSec) });
    }
    throw new HttpError(500, 'Internal error', -32603);
  }
  if (principal === undefined && !auth.allowAnonymous) throw new AccessDeniedError('unauthenticated', 'Unauthorized: this server needs a bearer token');
  request.principal = principal;
  return undefined;
}

async function byOption(principalOption: NamePrincipal, request: StagedRequest): Promise<undefined> {
  const named = await principalOption(request.incoming);
  request.principal = typeof named === 'string' ? { subject: named, scopes: [], claims: {} } : named;
  return undefined;
}

/**
 * How a refusal answered alone is sent: an access refusal as 401 or 403 with the
 * authentication's challenge, a rate limit as 429 with `Retry-After`.
 */
export function refusalHead(host: HttpServerHost): RefusalHead {
  return (error) => {
    if (error.code !== ErrorCode.AccessDenied) return rateLimitedHead(error);
    const { reason, scopes, challenge: params } = (error.data ?? {}) as { reason?: string; scopes?: string[]; challenge?: Record<string, string> };
    const auth = host.authentication;
    if (!auth) return { status: 403 };
    const status = reason === 'unauthenticated' || reason === 'invalid_token' ? 401 : 403;
    // No credentials: a bare challenge (RFC 6750 §3.1). Only a missing scope is worth a new token
    // (step-up); a role or guard refusal is final and gets none.
    const challenge: AuthChallenge | undefined =
      reason === 'unauthenticated'
        ? { scopes, params }
        : reason === 'invalid_token' || reason === 'insufficient_scope'
          ? { error: reason, description: error.message, scopes, params }
          : undefined;
    if (challenge === undefined) return { status };
    try {
      const reply = auth.challenge(challenge);
      const value = typeof reply === 'string' ? reply : reply?.wwwAuthenticate;
      if (typeof value !== 'string' || !HEADER_VALUE.test(value)) return { status };
      const headers: Record<string, string> = { 'www-authenticate': value };
      if (typeof reply === 'object') {
        // Only headers that can be sent, and none the answer sets itself.
        for (const [name, extra] of Object.entries(reply.headers ?? {})) {
          const lower = name.toLowerCase();
          if (HEADER_NAME.test(name) && typeof extra === 'string' && HEADER_VALUE.test(extra) && !(lower in headers) && lower !== 'content-type') headers[lower] = extra;
        }
      }
      return { status, headers };
    } catch {
      return { status }; // a challenge that cannot be sent must not cost the answer
    }
  };
}

/** An HTTP field name (RFC 9110 §5.1: a token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
