import type { HttpStageReply, HttpStageRequest } from '@typemcp/core';
import { redirectUriRefusal, withoutControlCharacters } from '../clients/Client';
import type { ClientAuthMethod, OAuthClient } from '../clients/Client';
import { jsonReply, oauthError } from '../http';
import type { ServerParts } from '../parts';
import { randomToken, sha256 } from '../tokens/secrets';

/** A registration is small; a larger body is refused before it is parsed. */
const MAX_REGISTRATION_BYTES = 16 * 1024;
const AUTH_METHODS: readonly ClientAuthMethod[] = ['none', 'client_secret_basic', 'client_secret_post'];

/**
 * `POST /oauth/register` (RFC 7591): a client registers itself. Rate-limited per address and
 * in all; a client that never completes a sign-in is forgotten after `unusedTtlSec`. The
 * metadata is the client's word: the consent page says it is unverified.
 */
export async function register(parts: ServerParts, request: HttpStageRequest): Promise<HttpStageReply> {
  const settings = parts.settings.registration!;
  if (request.method !== 'POST') return oauthError(405, 'invalid_request', 'use POST', { allow: 'POST' });
  const { counters } = parts.settings.store;
  const address = request.clientAddress;
  // Without an address (fetch handlers) every caller would share one count: one could use up everyone's.
  const overAddressLimit = async () => address !== undefined && (await counters.hit(`register:${address}`, 60)) > settings.perAddressPerMinute;
  if ((await counters.hit('register', 60)) > settings.perMinute || (await overAddressLimit())) {
    return oauthError(429, 'temporarily_unavailable', 'too many registrations; try again in a minute', { 'retry-after': '60' });
  }
  if (!/^application\/json\s*(;|$)/i.test(request.headers.get('content-type') ?? '')) return invalidMetadata('the body must be application/json');
  const text = await request.readBody();
  if (new TextEncoder().encode(text).byteLength > MAX_REGISTRATION_BYTES) return invalidMetadata(`the registration is larger than ${MAX_REGISTRATION_BYTES} bytes`);
  let metadata: Record<string, unknown>;
  try {
    metadata = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return invalidMetadata('the body is not JSON');
  }
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) return invalidMetadata('the body must be a JSON object');
  const redirectUris = metadata.redirect_uris;
  if (!Array.isArray(redirectUris) || redirectUris.length === 0 || redirectUris.length > 20) return oauthError(400, 'invalid_redirect_uri', 'redirect_uris must list 1 to 20 redirect URIs');
  for (const uri of redirectUris) {
    const refused = redirectUriRefusal(uri);
    if (refused !== undefined) return oauthError(400, 'invalid_redirect_uri', refused);
  }
  // RFC 7591 §2: without one, the method is client_secret_basic.
  const authMethod = (metadata.token_endpoint_auth_method ?? 'client_secret_basic') as ClientAuthMethod;
  if (!AUTH_METHODS.includes(authMethod)) return invalidMetadata(`token_endpoint_auth_method must be one of ${AUTH_METHODS.join(', ')}`);
  // RFC 7591 §2 defaults to authorization_code alone; MCP clients name refresh_token when they want it.
  const grantTypes = (metadata.grant_types ?? ['authorization_code']) as unknown[];
  if (!Array.isArray(grantTypes) || !grantTypes.every((type) => type === 'authorization_code' || type === 'refresh_token') || !grantTypes.includes('authorization_code')) {
    return invalidMetadata('grant_types must include authorization_code, and may add refresh_token only');
  }
  const responseTypes = metadata.response_types ?? ['code'];
  if (!Array.isArray(responseTypes) || responseTypes.length !== 1 || responseTypes[0] !== 'code') return invalidMetadata('response_types must be ["code"]');
  const name = optionalText(metadata.client_name, 200);
  const uri = optionalText(metadata.client_uri, 2000);
  if (name === null || uri === null) return invalidMetadata('client_name and client_uri must be short strings');
  if (uri !== undefined && !(URL.canParse(uri) && new URL(uri).protocol === 'https:')) return invalidMetadata('client_uri must be an https URL');
  const secret = authMethod === 'none' ? undefined : randomToken();
  const issuedAt = Math.floor(parts.settings.now() / 1000);
  const client: OAuthClient = {
    clientId: randomToken(16),
    origin: 'registered',
    redirectUris: redirectUris as string[],
    authMethod,
    refreshes: grantTypes.includes('refresh_token'),
    secretHash: secret === undefined ? undefined : await sha256(secret),
    name,
    uri,
    createdAt: issuedAt,
  };
  await parts.settings.store.clients.add(client, settings.unusedTtlSec);
  const answer: Record<string, unknown> = {
    client_id: client.clientId,
    client_id_issued_at: issuedAt,
    redirect_uris: client.redirectUris,
    token_endpoint_auth_method: authMethod,
    grant_types: grantTypes,
    response_types: ['code'],
  };
  if (secret !== undefined) Object.assign(answer, { client_secret: secret, client_secret_expires_at: 0 });
  if (name !== undefined) answer.client_name = name;
  if (uri !== undefined) answer.client_uri = uri;
  return jsonReply(201, answer);
}

const invalidMetadata = (description: string) => oauthError(400, 'invalid_client_metadata', description);

/** A string without control characters or direction overrides, at most `max` long; undefined when absent, null when not such a string. */
function optionalText(value: unknown, max: number): string | undefined | null {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length > max) return null;
  return withoutControlCharacters(value);
}
