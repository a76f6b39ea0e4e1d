import type { HttpRequestInfo, Principal } from '@typemcp/core';
import type { JSONWebKeySet } from 'jose';
import type { DpopOptions } from './dpop/options';

/** Options of the `auth` plugin: an OAuth 2.1 resource server for one MCP endpoint. */
export interface AuthOptions {
  /**
   * The canonical URL of the MCP endpoint, e.g. `https://mcp.example.com/mcp` (RFC 8707
   * resource indicator). Tokens must name it in `aud`; the protected resource metadata names
   * it as `resource` and is served at `/.well-known/oauth-protected-resource` plus its path.
   */
  resource: string;
  /** The authorization server whose tokens are accepted: the `iss` they must carry. */
  issuer: string;
  /**
   * Where the issuer publishes its signing keys. Default: the `jwks_uri` of its RFC 8414
   * metadata (`/.well-known/oauth-authorization-server`, then OpenID's), read on first use.
   */
  jwksUri?: string;
  /** Signing keys given directly (no fetching), instead of `jwksUri`. */
  jwks?: JSONWebKeySet;
  /**
   * Checks a token yourself (opaque tokens, introspection): resolve with the principal, or
   * with undefined to refuse it as invalid. Replaces the JWT checks.
   */
  verify?: (token: string, req: HttpRequestInfo) => Promise<Principal | undefined> | Principal | undefined;
  /** Accepted `aud` values; default `[resource]`. */
  audience?: string | string[];
  /** Accepted signing algorithms; default the asymmetric ones (RS*, PS*, ES*, EdDSA). */
  algorithms?: string[];
  /** Leeway for `exp` and `nbf`, in seconds; default 5. */
  clockToleranceSec?: number;
  /** The claim holding roles for `@Roles` (an array or a space-separated string); default `roles`. */
  rolesClaim?: string;
  /** `scopes_supported` of the metadata document: the scopes a client may ask for. */
  scopesSupported?: string[];
  /**
   * The scopes a client without a token is told to ask for: the `scope` of the 401 challenge
   * (MCP clients request these first). Default `scopesSupported`.
   */
  defaultScopes?: string[];
  /** `resource_name` of the metadata document: a name for people. */
  resourceName?: string;
  /** `resource_documentation` of the metadata document: a page about the server. */
  resourceDocumentation?: string;
  /**
   * Serve requests without a token, showing and allowing only `@Public()` targets; a call of
   * another one gets 401 with the challenge. Default false: every request needs a token.
   */
  allowAnonymous?: boolean;
  /**
   * Who the caller of a stdio connection is. stdio carries no tokens: the process that starts
   * the server decides, e.g. from its environment. Without it, stdio callers are anonymous.
   */
  stdio?: Principal;
  /**
   * DPoP (RFC 9449): tokens bound to the client's key (`cnf.jkt`) are accepted with the `DPoP`
   * scheme and a proof, and refused as bearer tokens. On by default beside bearer tokens;
   * `{ required: true }` refuses bearer tokens, `false` the DPoP scheme. Given, the metadata
   * names the algorithms (`dpop_signing_alg_values_supported`).
   */
  dpop?: DpopOptions | boolean;
}
