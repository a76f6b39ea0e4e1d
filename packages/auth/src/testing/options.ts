/** A client that may get tokens from the token endpoint with the `client_credentials` grant. */
export interface TestIssuerClient {
  /** The `client_id` it authenticates with. */
  clientId: string;
  /** The secret it presents with `client_secret_basic` or `client_secret_post`. */
  clientSecret: string;
  /**
   * The scopes it may be granted. A token request without `scope` gets all of them; one
   * asking for any other scope is refused with `invalid_scope`.
   */
  scopes: string[];
  /** Extra claims for every token issued to it, e.g. `{ roles: ['admin'] }`. */
  claims?: Record<string, unknown>;
}

/** Options of {@link TestIssuer.start}. */
export interface TestIssuerOptions {
  /** The clients its token endpoint knows. Default: none (only `issuer.token()` mints tokens). */
  clients?: TestIssuerClient[];
  /** The interface to listen on; default `127.0.0.1`. */
  host?: string;
  /** The port to listen on; default 0, a free port chosen by the system. */
  port?: number;
}

/** What {@link TestIssuer.token} puts in a token. */
export interface TokenOptions {
  /** `aud`: the resource the token is for, e.g. the MCP server's URL (RFC 8707). */
  audience: string | string[];
  /** `sub`; default `test-user`. */
  subject?: string;
  /** `scope`, joined with spaces; omitted when empty (the default). */
  scopes?: string[];
  /**
   * Lifetime: a duration such as `'5m'`, `'2h'`, `'-1m'` (jose's syntax), or seconds. A negative
   * value mints a token that has already expired. Default `'5m'`.
   */
  expiresIn?: string | number;
  /** `client_id`; default `test-client`. */
  clientId?: string;
  /** More claims, applied last: they may replace the ones above (`iat`, `exp`, `aud`, …). */
  claims?: Record<string, unknown>;
  /**
   * `'wrong'` signs with a key that is not in the JWKS but carries the published key id, so a
   * verifier picks the published key and the signature check fails. Default `'valid'`.
   */
  key?: 'valid' | 'wrong';
  /** `iss` instead of the issuer's own URL, for tokens from "another" authorization server. */
  issuer?: string;
}

/** One request the issuer answered, in arrival order. */
export interface ServedRequest {
  /** The HTTP method, e.g. `GET`. */
  method: string;
  /** The path, without the query string, e.g. `/.well-known/oauth-authorization-server`. */
  path: string;
}
