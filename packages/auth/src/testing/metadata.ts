import type { TestIssuerClient } from './options';

/** Where the issuer serves what. */
export const PATHS = {
  metadata: '/.well-known/oauth-authorization-server',
  jwks: '/.well-known/jwks.json',
  token: '/token',
  authorize: '/authorize',
} as const;

/**
 * The RFC 8414 metadata document. `authorization_endpoint` and `response_types_supported` are
 * there because the MCP SDK's metadata schema requires them even for client_credentials; the
 * endpoint answers `unsupported_response_type` and the list of response types is empty.
 */
export function authorizationServerMetadata(url: string, clients: readonly TestIssuerClient[]): Record<string, unknown> {
  const scopes = [...new Set(clients.flatMap((client) => client.scopes))];
  return {
    issuer: url,
    authorization_endpoint: `${url}${PATHS.authorize}`,
    token_endpoint: `${url}${PATHS.token}`,
    jwks_uri: `${url}${PATHS.jwks}`,
    response_types_supported: [],
    grant_types_supported: ['client_credentials'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    ...(scopes.length > 0 ? { scopes_supported: scopes } : {}),
  };
}
