import type { HttpStageReply, HttpStageRequest } from '@typemcp/core';
import { matchesRedirectUri } from '../clients/Client';
import type { OAuthClient } from '../clients/Client';
import { UnknownClientError } from '../ClientDirectory';
import { absoluteUrl, fromResponse, htmlReply, readForm, redirectReply, singleParams, withQuery } from '../http';
import type { SignInRequest, SignInUser } from '../options';
import { consentPage } from '../pages/consentPage';
import { errorPage } from '../pages/html';
import type { ServerParts } from '../parts';
import type { GrantUser, PendingAuthorization } from '../store/SignInStore';
import { equalStrings, isCodeChallenge, randomToken, sha256 } from '../tokens/secrets';

/** How long the user has to answer the consent page. */
const CONSENT_TTL_SEC = 600;
/** How long a code may wait for its exchange (RFC 6749 §4.1.2 recommends at most 10 minutes). */
const CODE_TTL_SEC = 60;

/** An authorization request whose client and redirect URI are verified: its errors go to the client. */
interface VerifiedRequest {
  readonly client: OAuthClient;
  readonly redirectUri: string;
  readonly state: string | undefined;
}

/** An authorization request that is valid in full. */
interface ValidRequest extends VerifiedRequest {
  readonly codeChallenge: string;
  readonly scopes: readonly string[];
  readonly resource: string;
  /** RFC 9449 §10: the code is bound to this DPoP key. */
  readonly dpopJkt?: string;
}

/**
 * `GET|POST /oauth/authorize` (the POST carries a login form of `authenticate`'s): checks the
 * request (a bad client or redirect URI gets a page, never a redirect; anything else is sent
 * back to the client), asks `authenticate` who the user is, and issues a code at once when the
 * user allowed every scope before, or shows the consent page.
 */
export async function authorize(parts: ServerParts, request: HttpStageRequest): Promise<HttpStageReply> {
  const url = absoluteUrl(request, parts.settings.origin);
  let params: Map<string, string>;
  try {
    params = singleParams(url.searchParams);
  } catch (error) {
    return htmlReply(400, errorPage('This sign-in request is invalid', (error as Error).message));
  }
  const verified = await verifyClient(parts, params);
  if (!('client' in verified)) return verified;
  let valid = validate(parts, params, verified);
  if (!('codeChallenge' in valid)) return valid;
  const answer = await parts.settings.authenticate(signInRequest(request, url));
  if (answer instanceof Response) return fromResponse(answer);
  const user = checkUser(answer);
  // Only the scopes this user may grant are asked for (the token's scope says what was left out).
  const allowed = user.scopes;
  if (allowed !== undefined) valid = { ...valid, scopes: valid.scopes.filter((scope) => allowed.includes(scope)) };
  const granted = await parts.settings.store.consents.get(user.id, valid.client.clientId);
  const newScopes = valid.scopes.filter((scope) => !granted.includes(scope));
  // Asking for nothing new skips the page only once the user allowed this client something: an
  // empty request (no scope, no default) would otherwise give any client a code without asking.
  if (newScopes.length === 0 && granted.length > 0) return issueCode(parts, valid, grantUser(user));
  const pending: PendingAuthorization = {
    id: randomToken(),
    csrf: randomToken(),
    clientId: valid.client.clientId,
    redirectUri: valid.redirectUri,
    state: valid.state,
    codeChallenge: valid.codeChallenge,
    scopes: valid.scopes,
    resource: valid.resource,
    user: grantUser(user),
    ...(valid.dpopJkt !== undefined ? { dpopJkt: valid.dpopJkt } : {}),
  };
  await parts.settings.store.requests.add(pending, CONSENT_TTL_SEC);
  const describe = (name: string) => ({ name, description: parts.settings.scopeDescriptions[name] });
  const { domain, verifiedDomain } = clientDomain(valid.client, valid.redirectUri);
  return htmlReply(
    200,
    consentPage({
      serviceName: parts.serviceName,
      action: parts.settings.endpoints.consent,
      requestId: pending.id,
      csrf: pending.csrf,
      userName: answer.name ?? answer.id,
      clientName: valid.client.name,
      clientDomain: domain,
      domainVerified: verifiedDomain,
      redirectHost: destinationOf(new URL(valid.redirectUri)),
      newScopes: newScopes.map(describe),
      grantedScopes: valid.scopes.filter((scope) => granted.includes(scope)),
    }),
  );
}

/**
 * `POST /oauth/consent`: the user's answer. The form must come from the consent page itself:
 * same origin, the request's id and its CSRF token, and the same signed-in user.
 */
export async function consent(parts: ServerParts, request: HttpStageRequest): Promise<HttpStageReply> {
  const refused = (status: number, message: string) => htmlReply(status, errorPage('This answer cannot be accepted', message));
  if (request.method !== 'POST') return htmlReply(405, errorPage('Method not allowed', 'The consent page answers with a form POST.'), { allow: 'POST' });
  const site = request.headers.get('sec-fetch-site');
  const origin = request.headers.get('origin');
  if ((site !== null && site !== 'same-origin') || (origin !== null && origin !== parts.settings.origin)) {
    return refused(403, 'The answer was sent from another site. Go back to the application and start the sign-in again.');
  }
  let form: Map<string, string>;
  try {
    form = singleParams(await readForm(request));
  } catch (error) {
    return refused(400, (error as Error).message);
  }
  const pending = await parts.settings.store.requests.take(form.get('request') ?? '');
  if (pending === undefined) return refused(400, 'This sign-in request has expired or was already answered. Start the sign-in again from the application.');
  if (!equalStrings(form.get('csrf') ?? '', pending.csrf)) return refused(403, 'The answer does not belong to this sign-in request.');
  const answer = await parts.settings.authenticate(signInRequest(request, absoluteUrl(request, parts.settings.origin)));
  if (answer instanceof Response) return fromResponse(answer);
  const user = checkUser(answer);
  if (user.id !== pending.user.id) return refused(403, 'You are signed in as someone else than when this sign-in started.');
  let client: OAuthClient;
  try {
    client = await parts.clients.find(pending.clientId);
  } catch (error) {
    if (error instanceof UnknownClientError) return refused(400, error.message);
    throw error;
  }
  const answered: ValidRequest = { client, redirectUri: pending.redirectUri, state: pending.state, codeChallenge: pending.codeChallenge, scopes: pending.scopes, resource: pending.resource, dpopJkt: pending.dpopJkt };
  const decision = form.get('decision');
  if (decision === 'deny') return redirectError(parts, answered, 'access_denied', 'The user denied the request');
  if (decision !== 'approve') return refused(400, 'The answer must be approve or deny.');
  const granted = await parts.settings.store.consents.get(user.id, client.clientId);
  await parts.settings.store.consents.set(user.id, client.clientId, [...new Set([...granted, ...pending.scopes])]);
  return issueCode(parts, answered, pending.user);
}

async function verifyClient(parts: ServerParts, params: Map<string, string>): Promise<VerifiedRequest | HttpStageReply> {
  const page = (message: string) => htmlReply(400, errorPage('This sign-in request is invalid', message));
  let client: OAuthClient;
  try {
    client = await parts.clients.find(params.get('client_id') ?? '');
  } catch (error) {
    if (error instanceof UnknownClientError) return page(`The application cannot sign in here: ${error.message}.`);
    throw error;
  }
  const redirectUri = params.get('redirect_uri');
  if (redirectUri === undefined) return page('The request names no redirect_uri.');
  // An unregistered redirect URI gets no redirect: it could send the code anywhere (open redirect).
  if (!matchesRedirectUri(client, redirectUri)) return page(`The redirect_uri ${redirectUri} is not one the application registered.`);
  return { client, redirectUri, state: params.get('state') };
}

function validate(parts: ServerParts, params: Map<string, string>, verified: VerifiedRequest): ValidRequest | HttpStageReply {
  const fail = (error: string, description: string) => redirectError(parts, verified, error, description);
  if (params.get('response_type') !== 'code') return fail('unsupported_response_type', 'response_type must be code');
  const codeChallenge = params.get('code_challenge');
  if (codeChallenge === undefined) return fail('invalid_request', 'PKCE is required: send code_challenge with code_challenge_method=S256');
  if (params.get('code_challenge_method') !== 'S256') return fail('invalid_request', 'code_challenge_method must be S256 (plain is not accepted)');
  if (!isCodeChallenge(codeChallenge)) return fail('invalid_request', 'code_challenge must be the base64url SHA-256 of the verifier (43 characters)');
  const resource = params.get('resource') ?? parts.settings.resource;
  if (resource !== parts.settings.resource) return fail('invalid_target', `this server issues tokens for ${parts.settings.resource} only`);
  const asked = (params.get('scope') ?? '').split(' ').filter((scope) => scope !== '');
  const known = parts.scopes();
  const unknown = asked.filter((scope) => !known.includes(scope));
  if (unknown.length > 0) return fail('invalid_scope', `unknown scope${unknown.length > 1 ? 's' : ''}: ${unknown.join(' ')}`);
  const scopes = asked.length > 0 ? [...new Set(asked)] : parts.defaultScopes();
  // Without DPoP the parameter is unknown, and ignored.
  const dpopJkt = parts.dpop === undefined ? undefined : params.get('dpop_jkt');
  if (dpopJkt !== undefined && !isCodeChallenge(dpopJkt)) return fail('invalid_request', 'dpop_jkt must be the base64url SHA-256 thumbprint of a JWK (43 characters)');
  return { ...verified, codeChallenge, scopes, resource, ...(dpopJkt !== undefined ? { dpopJkt } : {}) };
}

async function issueCode(parts: ServerParts, request: ValidRequest, user: GrantUser): Promise<HttpStageReply> {
  const code = randomToken();
  await parts.settings.store.codes.add(
    await sha256(code),
    {
      clientId: request.client.clientId,
      redirectUri: request.redirectUri,
      codeChallenge: request.codeChallenge,
      scopes: request.scopes,
      resource: request.resource,
      user,
      grantId: randomToken(16),
      ...(request.dpopJkt !== undefined ? { dpopJkt: request.dpopJkt } : {}),
    },
    CODE_TTL_SEC,
  );
  return redirectReply(withQuery(request.redirectUri, { code, state: request.state, iss: parts.settings.issuer }));
}

function redirectError(parts: ServerParts, request: VerifiedRequest, error: string, description: string): HttpStageReply {
  return redirectReply(withQuery(request.redirectUri, { error, error_description: description, state: request.state, iss: parts.settings.issuer }));
}

function signInRequest(request: HttpStageRequest, url: URL): SignInRequest {
  return {
    method: request.method,
    url: url.href,
    headers: request.headers,
    clientAddress: request.clientAddress,
    form: async () => (request.method === 'POST' ? readForm(request).catch(() => new URLSearchParams()) : new URLSearchParams()),
  };
}

function checkUser(user: SignInUser): SignInUser {
  if (typeof user !== 'object' || user === null || typeof user.id !== 'string' || user.id === '') {
    throw new TypeError('signIn: authenticate must return a user with a non-empty string id, or a Response');
  }
  return user;
}

const grantUser = (user: SignInUser): GrantUser => ({
  id: user.id,
  ...(user.roles !== undefined ? { roles: [...user.roles] } : {}),
  ...(user.upstream !== undefined ? { upstream: user.upstream } : {}),
});

/**
 * The domain the consent page names: a metadata document's host (verified: the client is
 * whoever serves it), else the host of the redirect, which the registration only claims.
 */
function clientDomain(client: OAuthClient, redirectUri: string): { domain: string; verifiedDomain: boolean } {
  if (client.origin === 'metadata-document') return { domain: new URL(client.clientId).host, verifiedDomain: true };
  return { domain: destinationOf(new URL(redirectUri)), verifiedDomain: false };
}

/**
 * Where a redirect goes, as the consent page names it: the host of a web address; an app's
 * scheme with its host (`myapp://accounts.google.com` opens whatever app took `myapp`, not
 * that site), or the scheme alone.
 */
function destinationOf(redirect: URL): string {
  if (redirect.protocol === 'https:' || redirect.protocol === 'http:') return redirect.host;
  return redirect.host !== '' ? `${redirect.protocol}//${redirect.host}` : redirect.protocol.replace(/:$/, '');
}
