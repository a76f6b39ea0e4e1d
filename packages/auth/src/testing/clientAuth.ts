import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { OAuthErrorResponse } from './http';
import type { TestIssuerClient } from './options';

/** RFC 6749 §5.2: a client that tried HTTP Basic is told the scheme to use again. */
const BASIC_CHALLENGE = { 'www-authenticate': 'Basic realm="TestIssuer", charset="UTF-8"' };

/**
 * The client a token request authenticates as, by `client_secret_basic` (the Authorization
 * header) or `client_secret_post` (`client_id` and `client_secret` in the form), never both.
 * Refusals are `invalid_client` (401) or, for a malformed request, `invalid_request` (400).
 */
export function authenticateClient(req: IncomingMessage, form: URLSearchParams, clients: ReadonlyMap<string, TestIssuerClient>): TestIssuerClient {
  const header = req.headers.authorization;
  const inForm = form.has('client_id') || form.has('client_secret');
  if (header !== undefined && inForm) {
    throw new OAuthErrorResponse(400, 'invalid_request', 'the client authenticated twice: use the Authorization header or client_id/client_secret in the body, not both');
  }
  if (header !== undefined) {
    const [id, secret] = basicCredentials(header);
    return check(clients, id, secret, BASIC_CHALLENGE);
  }
  const id = form.get('client_id');
  const secret = form.get('client_secret');
  if (id === null) {
    throw new OAuthErrorResponse(401, 'invalid_client', 'client authentication is required: client_secret_basic (Authorization: Basic) or client_secret_post (client_id and client_secret)', BASIC_CHALLENGE);
  }
  if (secret === null) throw new OAuthErrorResponse(401, 'invalid_client', `client_secret is missing for client "${id}"`);
  return check(clients, [id], [secret], {});
}

/**
 * The client id and secret of a Basic header, each in two spellings: RFC 6749 §2.3.1 has them
 * form-encoded before base64, but many clients (the MCP SDK among them) send them raw.
 */
function basicCredentials(header: string): [string[], string[]] {
  const match = /^Basic +([A-Za-z0-9+/]+=*) *$/i.exec(header);
  const decoded = match ? Buffer.from(match[1], 'base64').toString('utf8') : '';
  const colon = decoded.indexOf(':');
  if (colon < 1) {
    throw new OAuthErrorResponse(401, 'invalid_client', 'the Authorization header must be "Basic base64(client_id:client_secret)"', BASIC_CHALLENGE);
  }
  const spellings = (text: string) => [...new Set([text, formDecoded(text)])];
  return [spellings(decoded.slice(0, colon)), spellings(decoded.slice(colon + 1))];
}

function formDecoded(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

function check(clients: ReadonlyMap<string, TestIssuerClient>, ids: string[], secrets: string[], headers: Record<string, string>): TestIssuerClient {
  const client = ids.map((id) => clients.get(id)).find((found) => found !== undefined);
  if (client === undefined) throw new OAuthErrorResponse(401, 'invalid_client', `the client "${ids[0]}" is not registered with this issuer`, headers);
  if (!secrets.some((secret) => sameSecret(secret, client.clientSecret))) {
    throw new OAuthErrorResponse(401, 'invalid_client', `wrong client_secret for the client "${client.clientId}"`, headers);
  }
  return client;
}

/** Constant-time comparison (of digests, so the lengths match too). */
function sameSecret(given: string, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(expected));
}
