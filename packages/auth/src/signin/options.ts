import type { Principal } from '@typemcp/core';
import type { DpopOptions } from '../dpop/options';
import type { DocumentFetcher } from './clients/fetchers';
import type { SignInStore } from './store/SignInStore';

/** The signed-in user, as `authenticate` finds them. */
export interface SignInUser {
  /** Stable and unique: the tokens' `sub` and the handlers' `ctx.principal.subject`. */
  readonly id: string;
  /** Shown on the consent page ("Signed in as …"); default the id. */
  readonly name?: string;
  /** Roles for `@Roles`, carried in the tokens' `roles` claim. */
  readonly roles?: readonly string[];
  /**
   * The scopes this user may grant: a request's other scopes are left out, and the consent
   * page offers only these. Default: every scope.
   */
  readonly scopes?: readonly string[];
  /** Set by sign-in through an upstream provider (`upstream`): the sign-in whose tokens the grant holds. */
  readonly upstream?: string;
}

/** A request to the authorization server's pages, as `authenticate` reads it. */
export interface SignInRequest {
  readonly method: string;
  /** The absolute URL, with its query. */
  readonly url: string;
  readonly headers: { get(name: string): string | null };
  /** The client's network address, when the host knows it. */
  readonly clientAddress: string | undefined;
  /** The body of a form POST (`application/x-www-form-urlencoded`); empty for other requests. */
  form(): Promise<URLSearchParams>;
}

/**
 * Who is signing in. Return the user when the request shows who they are (the app's session
 * cookie); return a `Response` to answer instead: a redirect to the app's login page that
 * comes back to `request.url`, or a login form of your own. `developmentLogin` is one.
 */
export type Authenticate = (request: SignInRequest) => SignInUser | Response | Promise<SignInUser | Response>;

/** Client ID Metadata Documents: clients named by an HTTPS URL that describes them. */
export interface MetadataDocumentSettings {
  /**
   * Development only: fetch documents from loopback and private addresses (127.0.0.1, 10.x,
   * …). Never in production: it lets anyone make this server request your internal network.
   */
  readonly allowPrivateAddresses?: boolean;
  /** A document takes at most this long to arrive; default 5000 ms. */
  readonly timeoutMs?: number;
  /** A document may be at most this large; default 16 KiB. */
  readonly maxBytes?: number;
  /** Documents are kept at most this long whatever their Cache-Control says; default one day. */
  readonly cacheMaxSec?: number;
  /** At most this many documents are kept; default 1000. */
  readonly maxEntries?: number;
  /** Fetches documents instead of the host's own fetcher (tests, egress proxies). */
  readonly fetcher?: DocumentFetcher;
}

/** Dynamic Client Registration (RFC 7591), for clients that cannot use a metadata document. */
export interface RegistrationSettings {
  /** Registrations accepted per client address per minute, where the host knows it (not fetch handlers); default 10. */
  readonly perAddressPerMinute?: number;
  /** Registrations accepted per minute from everyone; default 100. */
  readonly perMinute?: number;
  /** A client that never completes a sign-in is forgotten after this long; default one day. */
  readonly unusedTtlSec?: number;
}

/** Options of the `signIn` plugin: an OAuth 2.1 authorization server beside the MCP endpoint. */
export interface SignInOptions {
  /**
   * The canonical URL of the MCP endpoint, e.g. `https://mcp.example.com/mcp`: the audience
   * of every token issued (RFC 8707).
   */
  readonly resource: string;
  /**
   * The authorization server's identifier; default the resource's origin. Its endpoints are
   * served under `<issuer>/oauth/`, its metadata at `/.well-known/oauth-authorization-server`
   * (plus the issuer's path, if it has one).
   */
  readonly issuer?: string;
  /** Who is signing in: the app's session, or a `Response` to ask (see `developmentLogin`). */
  readonly authenticate: Authenticate;
  /**
   * At least 32 characters (or bytes) of secret that encrypt the signing keys where they are
   * stored. Keep it out of the code (an environment variable). Under another secret the stored
   * key cannot sign: tokens already issued still verify, but none is issued until the secret
   * it was stored under comes back or the stored keys are deleted.
   */
  readonly secret: string | Uint8Array;
  /**
   * Where clients, codes, grants, consents and keys are kept; default this process's memory.
   * Required on Cloudflare Workers, whose isolates share no memory.
   */
  readonly store?: SignInStore;
  /**
   * The scopes a client without a token is told to ask for (the 401's `scope`), and that an
   * authorization request naming none gets. Default: every scope the server's `@Scopes` name.
   */
  readonly defaultScopes?: readonly string[];
  /** What each scope allows, in words for the consent page: `{ 'notes:write': 'Change your notes' }`. */
  readonly scopeDescriptions?: Readonly<Record<string, string>>;
  /** Client ID Metadata Documents; on by default, `false` to refuse URL client ids. */
  readonly metadataDocuments?: MetadataDocumentSettings | false;
  /** Dynamic Client Registration; on by default, `false` to switch it off. */
  readonly registration?: RegistrationSettings | false;
  /** Lifetime of access tokens; default 3600 s. */
  readonly accessTokenTtlSec?: number;
  /** Lifetime of a refresh token (each use issues a new one); default 30 days. */
  readonly refreshTokenTtlSec?: number;
  /** How often a new signing key is made; the previous stays published; default 30 days. */
  readonly keyRotationSec?: number;
  /** The name the sign-in pages show for this server; default the server's name. */
  readonly serviceName?: string;
  /**
   * Serve requests without a token, showing and allowing only `@Public()` targets; default
   * false.
   */
  readonly allowAnonymous?: boolean;
  /** Who the caller of a stdio connection is (stdio carries no tokens). */
  readonly stdio?: Principal;
  /**
   * DPoP (RFC 9449): a token request with a DPoP proof gets tokens bound to the proof's key
   * (`token_type: DPoP`, `cnf.jkt`; the refresh token too), which the resource then accepts
   * only with a proof of that key. On by default beside bearer tokens; `{ required: true }`
   * refuses bearer tokens at the resource, `false` switches DPoP off. Nonces derive from
   * `secret` unless `dpop.nonce.secret` is given.
   */
  readonly dpop?: DpopOptions | boolean;
  /** The clock, in epoch milliseconds (tests). */
  readonly now?: () => number;
}
