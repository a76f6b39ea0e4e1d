import type { Settings } from '../settings';

/** RFC 8414 authorization server metadata. */
export function authorizationServerMetadata(settings: Settings, scopes: readonly string[], metadataDocuments: boolean): Record<string, unknown> {
  const { endpoints } = settings;
  const document: Record<string, unknown> = {
    issuer: settings.issuer,
    authorization_endpoint: endpoints.authorize,
    token_endpoint: endpoints.token,
    jwks_uri: endpoints.jwks,
    revocation_endpoint: endpoints.revoke,
    scopes_supported: scopes,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
    revocation_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
    // RFC 9207: the redirect names the issuer, so a client talking to several cannot be mixed up.
    authorization_response_iss_parameter_supported: true,
    client_id_metadata_document_supported: metadataDocuments,
  };
  if (settings.registration !== undefined) document.registration_endpoint = endpoints.register;
  return document;
}

/** RFC 9728 protected resource metadata of the MCP endpoint. */
export function protectedResourceMetadata(settings: Settings, scopes: readonly string[], name: string): Record<string, unknown> {
  return {
    resource: settings.resource,
    authorization_servers: [settings.issuer],
    scopes_supported: scopes,
    bearer_methods_supported: ['header'],
    resource_name: name,
  };
}
