import type { HttpStageReply, HttpStageRequest } from '@typemcp/core';
import { AccessDeniedError } from '@typemcp/core';
import type { OAuthClient } from '../clients/Client';
import { jsonReply, oauthError, readForm, singleParams } from '../http';
import type { ServerParts } from '../parts';
import type { Grant } from '../store/SignInStore';
import { randomToken, sha256, verifierMatches } from '../tokens/secrets';
import { authenticateClient, InvalidClientError } from './clientAuth';
import { tokenRequestKey } from '../../dpop/tokenEndpoint';

/** `POST /oauth/token`: the authorization code and refresh token grants. */
export async function token(parts: ServerParts, request: HttpStageRequest): Promise<HttpStageReply> {
  const proven = await clientRequest(parts, request);
  if (!('client' in proven)) return proven;
  const { params, client } = proven;
  // A DPoP proof binds the tokens to its key (RFC 9449 §5).
  const key = await tokenRequestKey(parts, request);
  if (!('jkt' in key)) return key;
  const grantType = params.get('grant_type');
  if (grantType === 'authorization_code') return exchangeCode(parts, client, params, key.jkt);
  if (grantType === 'refresh_token') return refresh(parts, client, params, key.jkt);
  return oauthError(400, 'unsupported_grant_type', grantType === undefined ? 'grant_type is required' : `the grant type ${grantType} is not supported`);
}

/** `POST /oauth/revoke` (RFC 7009): a refresh or access token of the client ends its grant. Unknown tokens are answered 200 too. */
export async function revoke(parts: ServerParts, request: HttpStageRequest): Promise<HttpStageReply> {
  const proven = await clientRequest(parts, request);
  if (!('client' in proven)) return proven;
  const { params, client } = proven;
  const token = params.get('token');
  if (token === undefined) return oauthError(400, 'invalid_request', 'token is required');
  const grantId = await grantOfToken(parts, token);
  if (grantId !== undefined) {
    const grant = await parts.settings.store.grants.get(grantId);
    // Another client's token is not this client's to end (RFC 7009 §2.1); it learns nothing either way.
    if (grant !== undefined && grant.clientId === client.clientId) await parts.settings.store.grants.revoke(grantId);
  }
  return jsonReply(200, {});
}

async function exchangeCode(parts: ServerParts, client: OAuthClient, params: Map<string, string>, jkt: string | undefined): Promise<HttpStageReply> {
  const { store } = parts.settings;
  const code = params.get('code');
  const redirectUri = params.get('redirect_uri');
  const verifier = params.get('code_verifier');
  if (code === undefined || redirectUri === undefined || verifier === undefined) return oauthError(400, 'invalid_request', 'code, redirect_uri and code_verifier are required');
  const taken = await store.codes.take(await sha256(code));
  if (taken === undefined) return invalidGrant('the code is unknown or expired');
  const issued = taken.code;
  if (!taken.firstUse) {
    // RFC 6749 §4.1.2: a code presented twice was stolen or replayed; what it gave is revoked.
    await store.grants.revoke(issued.grantId);
    return invalidGrant('the code was already used; the tokens issued for it are revoked');
  }
  if (issued.clientId !== client.clientId) return invalidGrant('the code was issued to another client');
  if (issued.redirectUri !== redirectUri) return invalidGrant('redirect_uri differs from the authorization request');
  const resource = params.get('resource');
  if (resource !== undefined && resource !== issued.resource) return oauthError(400, 'invalid_target', `the code was issued for ${issued.resource}`);
  if (issued.dpopJkt !== undefined && issued.dpopJkt !== jkt) return invalidGrant(`the code is bound to the DPoP key of dpop_jkt: ${jkt === undefined ? 'send a DPoP proof of it' : 'the proof is signed by another key'}`);
  // The grant is stored before anything else is awaited (its refresh hash a placeholder no token
  // hashes to), so a replay of the code during this exchange finds it and revokes it; the refresh
  // token is then set by compare-and-set, which fails once the grant is revoked.
  const placeholder = randomToken();
  const grant: Grant = {
    id: issued.grantId,
    clientId: client.clientId,
    user: issued.user,
    scopes: issued.scopes,
    resource: issued.resource,
    refreshHash: placeholder,
    usedRefreshHashes: [],
    refreshExpiresAt: nowSec(parts) + parts.settings.refreshTokenTtlSec,
    revoked: false,
    ...(jkt !== undefined ? { dpopJkt: jkt } : {}),
  };
  await store.grants.add(grant, parts.settings.refreshTokenTtlSec);
  if (!(await verifierMatches(verifier, issued.codeChallenge))) {
    await store.grants.revoke(grant.id);
    return invalidGrant('the code_verifier does not match the code_challenge (PKCE)');
  }
  const refreshToken = `${issued.grantId}.${randomToken()}`;
  const next = { refreshHash: await sha256(refreshToken), refreshExpiresAt: grant.refreshExpiresAt };
  if (!(await store.grants.rotate(grant.id, placeholder, next, parts.settings.refreshTokenTtlSec))) {
    return invalidGrant('the code was used twice at once; the tokens issued for it are revoked');
  }
  if (client.origin === 'registered') await store.clients.markUsed(client.clientId);
  return tokenReply(parts, grant, grant.scopes, client.refreshes === false ? undefined : refreshToken, jkt);
}

async function refresh(parts: ServerParts, client: OAuthClient, params: Map<string, string>, jkt: string | undefined): Promise<HttpStageReply> {
  const { store } = parts.settings;
  const presented = params.get('refresh_token');
  if (presented === undefined) return oauthError(400, 'invalid_request', 'refresh_token is required');
  if (client.refreshes === false) return oauthError(400, 'unauthorized_client', 'the client did not register the refresh_token grant type');
  const grant = await store.grants.get(presented.split('.')[0]);
  const hash = await sha256(presented);
  if (grant === undefined || grant.clientId !== client.clientId) return invalidGrant('the refresh token is unknown, expired or not this client\'s');
  if (grant.revoked) return invalidGrant('the grant was revoked; sign in again');
  // Before the reuse check: without the key, a stolen refresh token cannot even revoke the grant.
  if (grant.dpopJkt !== undefined && grant.dpopJkt !== jkt) {
    return jkt === undefined ? oauthError(400, 'invalid_dpop_proof', 'the refresh token is bound to a DPoP key: send a DPoP proof of it') : invalidGrant('the refresh token is bound to another DPoP key than the proof\'s');
  }
  if (grant.usedRefreshHashes.includes(hash)) {
    // Rotation (OAuth 2.1 §4.3.1): an old refresh token came back, so one of its holders is not the client.
    await store.grants.revoke(grant.id);
    return invalidGrant('the refresh token was already used; the grant is revoked, sign in again');
  }
  if (hash !== grant.refreshHash) return invalidGrant('the refresh token is unknown, expired or not this client\'s');
  if (grant.refreshExpiresAt <= nowSec(parts)) return invalidGrant('the refresh token expired; sign in again');
  const resource = params.get('resource');
  if (resource !== undefined && resource !== grant.resource) return oauthError(400, 'invalid_target', `the grant is for ${grant.resource}`);
  const asked = params.get('scope')?.split(' ').filter((scope) => scope !== '');
  const beyond = (asked ?? []).filter((scope) => !grant.scopes.includes(scope));
  if (beyond.length > 0) return oauthError(400, 'invalid_scope', `the grant does not include ${beyond.join(' ')}; ask for it with a new authorization`);
  const next = `${grant.id}.${randomToken()}`;
  const refreshExpiresAt = nowSec(parts) + parts.settings.refreshTokenTtlSec;
  if (!(await store.grants.rotate(grant.id, hash, { refreshHash: await sha256(next), refreshExpiresAt }, parts.settings.refreshTokenTtlSec))) {
    // Another exchange of the same token won the race: one of the two is a replay.
    await store.grants.revoke(grant.id);
    return invalidGrant('the refresh token was used twice at once; the grant is revoked, sign in again');
  }
  return tokenReply(parts, grant, asked !== undefined && asked.length > 0 ? asked : grant.scopes, next, jkt);
}

async function tokenReply(parts: ServerParts, grant: Grant, scopes: readonly string[], refreshToken: string | undefined, jkt: string | undefined): Promise<HttpStageReply> {
  const access = await parts.accessTokens.issue({ grantId: grant.id, clientId: grant.clientId, user: grant.user, scopes, resource: grant.resource, jkt });
  const answer: Record<string, unknown> = { access_token: access.token, token_type: jkt === undefined ? 'Bearer' : 'DPoP', expires_in: access.expiresIn, scope: scopes.join(' ') };
  if (refreshToken !== undefined) answer.refresh_token = refreshToken;
  return jsonReply(200, answer);
}

/** The grant a refresh token or an access token of this server belongs to. */
async function grantOfToken(parts: ServerParts, token: string): Promise<string | undefined> {
  if (token.split('.').length === 2) {
    const grant = await parts.settings.store.grants.get(token.split('.')[0]);
    const hash = await sha256(token);
    return grant !== undefined && (grant.refreshHash === hash || grant.usedRefreshHashes.includes(hash)) ? grant.id : undefined;
  }
  try {
    return (await parts.accessTokens.verify(token, parts.settings.resource)).grantId;
  } catch (error) {
    if (error instanceof AccessDeniedError) return undefined;
    throw error;
  }
}

/** The form of a client's POST and the client it proves to be, or the error to answer. */
async function clientRequest(parts: ServerParts, request: HttpStageRequest): Promise<{ params: Map<string, string>; client: OAuthClient } | HttpStageReply> {
  if (request.method !== 'POST') return oauthError(405, 'invalid_request', 'use POST', { allow: 'POST' });
  let params: Map<string, string>;
  try {
    params = singleParams(await readForm(request));
  } catch (error) {
    return oauthError(400, 'invalid_request', (error as Error).message);
  }
  try {
    return { params, client: await authenticateClient(parts.clients, params, request.headers.get('authorization')) };
  } catch (error) {
    if (error instanceof InvalidClientError) return invalidClient(error.message);
    throw error;
  }
}

const invalidGrant = (description: string) => oauthError(400, 'invalid_grant', description);
const invalidClient = (description: string) => oauthError(401, 'invalid_client', description, { 'www-authenticate': 'Basic realm="oauth"' });
const nowSec = (parts: ServerParts) => Math.floor(parts.settings.now() / 1000);
