import type { OAuthClient } from '../clients/Client';
import type { ClientDirectory } from '../ClientDirectory';
import { UnknownClientError } from '../ClientDirectory';
import { equalStrings, sha256 } from '../tokens/secrets';

/** A client that failed to prove itself at the token or revocation endpoint (`invalid_client`, 401). */
export class InvalidClientError extends Error {}

/**
 * The client of a token or revocation request, proven as it registered: by its secret in
 * `Authorization: Basic` or the body, or by nothing for a public client (PKCE proves it).
 */
export async function authenticateClient(directory: ClientDirectory, params: Map<string, string>, authorization: string | null): Promise<OAuthClient> {
  let clientId = params.get('client_id');
  let secret: string | undefined;
  let method: OAuthClient['authMethod'] = 'none';
  if (authorization !== null) {
    const basic = /^Basic +([A-Za-z0-9+/]+=*) *$/i.exec(authorization);
    if (basic === null) throw new InvalidClientError('the Authorization header must be Basic client credentials');
    let decoded: string;
    try {
      decoded = atob(basic[1]);
    } catch {
      throw new InvalidClientError('the Basic credentials are not base64');
    }
    const colon = decoded.indexOf(':');
    if (colon < 0) throw new InvalidClientError('the Basic credentials must be client_id:client_secret');
    // RFC 6749 §2.3.1: both are form-urlencoded before they are joined.
    const basicId = safeDecode(decoded.slice(0, colon));
    if (clientId !== undefined && clientId !== basicId) throw new InvalidClientError('client_id differs from the Basic credentials');
    clientId = basicId;
    secret = safeDecode(decoded.slice(colon + 1));
    method = 'client_secret_basic';
  } else if (params.has('client_secret')) {
    secret = params.get('client_secret');
    method = 'client_secret_post';
  }
  if (clientId === undefined || clientId === '') throw new InvalidClientError('the request names no client (client_id)');
  let client: OAuthClient;
  try {
    client = await directory.find(clientId);
  } catch (error) {
    if (error instanceof UnknownClientError) throw new InvalidClientError(error.message);
    throw error;
  }
  if (client.authMethod !== method) throw new InvalidClientError(`the client registered to authenticate with ${client.authMethod}, not ${method}`);
  if (method !== 'none' && (client.secretHash === undefined || !equalStrings(await sha256(secret ?? ''), client.secretHash))) {
    throw new InvalidClientError('the client secret is wrong');
  }
  return client;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    throw new InvalidClientError('the Basic credentials are not form-urlencoded');
  }
}
