import type { HttpRequestInfo, Principal } from '../protocol';
import type { ServiceKey } from '../runtime/plugins';

/** What a `WWW-Authenticate` challenge says (RFC 6750 §3). */
export interface AuthChallenge {
  /** Absent when the request carried no credentials at all. */
  readonly error?: 'invalid_token' | 'insufficient_scope';
  readonly description?: string;
  /** The scopes to ask the authorization server for. */
  readonly scopes?: readonly string[];
  /** What the refusal's `AccessDeniedError` carried for the challenge (`options.challenge`), untouched. */
  readonly params?: Readonly<Record<string, string>>;
}

/** A challenge with other headers of the refusal beside `WWW-Authenticate` (a nonce the client must use, …). */
export interface AuthChallengeReply {
  /** The `WWW-Authenticate` value: one challenge, or several separated by commas (RFC 9110 §11.6.1). */
  readonly wwwAuthenticate: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * How a server identifies its callers, registered by a plugin with `host.provide(AuthenticationService, …)`
 * (`@typemcp/auth` is one). The HTTP handler asks it for every request's principal and
 * answers refusals with its challenge; stdio connections get `localPrincipal`.
 */
export interface Authentication {
  /**
   * The principal of an HTTP request, or undefined when it carries no credentials. Throws
   * `AccessDeniedError('invalid_token', why)` for credentials it rejects (answered 401). The
   * request is what the server reads of it on every runtime: its method, URL and headers
   * (`req.headers.get('authorization')`).
   */
  authenticate(req: HttpRequestInfo): Principal | undefined | Promise<Principal | undefined>;
  /**
   * The `WWW-Authenticate` header value of a 401 or 403 answer (several challenges are joined
   * by commas), or that value with other headers of the answer.
   */
  challenge(challenge: AuthChallenge): string | AuthChallengeReply;
  /**
   * Serve requests without credentials, with only `@Public()` tools, resources and prompts
   * (default false: such a request is answered 401 before anything else).
   */
  readonly allowAnonymous?: boolean;
  /** The principal of connections without HTTP requests (stdio): their credentials come from the environment. */
  readonly localPrincipal?: Principal;
  /** JSON documents served to GET at these paths, before any check (RFC 9728 protected resource metadata). */
  readonly documents?: ReadonlyMap<string, Readonly<Record<string, unknown>>>;
}

/**
 * How the server authenticates its callers (`host.provide(AuthenticationService, …)`; one per
 * server, `@typemcp/auth` provides it): HTTP requests without credentials it accepts are
 * answered 401 (unless it allows anonymous callers), every target not marked `@Public()` needs
 * an authenticated caller, and stdio connections get its `localPrincipal`.
 */
export const AuthenticationService: ServiceKey<Authentication> = {
  name: 'authentication',
  check(value) {
    const auth = value as Partial<Authentication> | null;
    if (typeof auth !== 'object' || auth === null || typeof auth.authenticate !== 'function' || typeof auth.challenge !== 'function') {
      throw new TypeError('AuthenticationService needs an object with authenticate(req) and challenge(challenge) functions');
    }
  },
};
