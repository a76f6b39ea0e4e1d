import type { IncomingMessage, ServerResponse } from 'node:http';
import { authenticateClient } from './clientAuth';
import { OAuthErrorResponse, readBody, sendJson } from './http';
import type { TestIssuerClient } from './options';

/** What the token endpoint needs from its issuer. */
export interface TokenEndpoint {
  clients: ReadonlyMap<string, TestIssuerClient>;
  /** Lifetime of the tokens it issues, in seconds. */
  lifetime: number;
  /** Signs a token for an authenticated client. */
  issue(client: TestIssuerClient, audience: string | string[], scopes: string[]): Promise<string>;
}

/**
 * POST /token with the `client_credentials` grant (RFC 6749 §4.4): the client authenticates,
 * `scope` is limited to its scopes, `resource` (RFC 8707, repeatable) becomes `aud`.
 * Failures answer RFC 6749 §5.2 errors; the caller sends them.
 */
export async function tokenRequest(req: IncomingMessage, res: ServerResponse, endpoint: TokenEndpoint): Promise<void> {
  if (req.method !== 'POST') throw new OAuthErrorResponse(405, 'invalid_request', 'the token endpoint takes POST requests', { allow: 'POST' });
  const type = req.headers['content-type']?.split(';')[0].trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') {
    throw new OAuthErrorResponse(400, 'invalid_request', `the body must be application/x-www-form-urlencoded, not ${type ?? 'missing'}`);
  }
  const form = new URLSearchParams(await readBody(req));
  // RFC 6749 §3.2: parameters appear once; RFC 8707 lets `resource` repeat.
  for (const name of new Set(form.keys())) {
    if (name !== 'resource' && form.getAll(name).length > 1) throw new OAuthErrorResponse(400, 'invalid_request', `the parameter ${name} is repeated`);
  }
  const client = authenticateClient(req, form, endpoint.clients);
  const grantType = form.get('grant_type');
  if (grantType === null) throw new OAuthErrorResponse(400, 'invalid_request', 'grant_type is missing');
  if (grantType !== 'client_credentials') {
    throw new OAuthErrorResponse(400, 'unsupported_grant_type', `the grant type "${grantType}" is not supported; this issuer supports client_credentials`);
  }
  const scopes = grantedScopes(client, form.get('scope'));
  const audience = resources(form.getAll('resource'));
  const token = await endpoint.issue(client, audience, scopes);
  sendJson(res, 200, { access_token: token, token_type: 'Bearer', expires_in: endpoint.lifetime, scope: scopes.join(' ') }, { pragma: 'no-cache' });
}

/** The requested scopes if the client may have them all; without `scope`, all of its scopes (RFC 6749 §3.3). */
function grantedScopes(client: TestIssuerClient, scope: string | null): string[] {
  const requested = [...new Set((scope ?? '').split(' ').filter((name) => name !== ''))];
  if (requested.length === 0) return [...client.scopes];
  const refused = requested.filter((name) => !client.scopes.includes(name));
  if (refused.length > 0) {
    const allowed = client.scopes.length > 0 ? client.scopes.join(' ') : 'none';
    throw new OAuthErrorResponse(400, 'invalid_scope', `the client "${client.clientId}" may not have ${refused.join(' ')} (its scopes: ${allowed})`);
  }
  return requested;
}

/** The `aud` of the token: the resource indicators, absolute URIs without fragment (RFC 8707 §2). */
function resources(values: string[]): string | string[] {
  if (values.length === 0) {
    throw new OAuthErrorResponse(400, 'invalid_target', 'resource is missing: name the MCP server the token is for (RFC 8707); it becomes the token\'s aud');
  }
  for (const value of values) {
    if (!URL.canParse(value) || value.includes('#')) throw new OAuthErrorResponse(400, 'invalid_target', `the resource ${JSON.stringify(value)} is not an absolute URI without fragment`);
  }
  return values.length === 1 ? values[0] : values;
}
