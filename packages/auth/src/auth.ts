import { AccessDeniedError, AuthenticationService, DefinitionError } from '@typemcp/core';
import type { Authentication, HttpRequestInfo, Plugin, Principal } from '@typemcp/core';
import { schemeChallenge, withDefaultScopes } from './challenge';
import { ResourceDpop } from './dpop/resource';
import { dpopMetadata, dpopSettingsOf } from './dpop/settings';
import { JwtVerifier } from './JwtVerifier';
import type { AuthOptions } from './options';
import { protectedResource } from './protectedResource';

/**
 * An OAuth 2.1 resource server for the server's HTTP endpoint: bearer tokens checked on every
 * request (JWTs against the issuer's keys, or `verify`), RFC 9728 metadata served, 401 with
 * `WWW-Authenticate: Bearer resource_metadata=…` without a valid token, and `ctx.principal`
 * for handlers. Add with `server.plugin(auth, { resource, issuer })`.
 */
export const auth: Plugin<AuthOptions> = {
  name: '@typemcp/auth',
  version: '0.1.0',
  register(host, options) {
    checkOptions(options);
    const dpop = new ResourceDpop(dpopSettingsOf(options.dpop, '@typemcp/auth', Date.now), new URL(options.resource).origin);
    const metadata = protectedResource(options);
    // Named in the metadata when configured; DPoP-bound tokens are accepted either way.
    if (options.dpop !== undefined) Object.assign(metadata.document, dpopMetadata(dpop.settings));
    const jwt = options.verify ? undefined : new JwtVerifier(options);
    const verify = async (token: string, req: HttpRequestInfo): Promise<Principal> => {
      if (jwt) return jwt.verify(token);
      const principal = await options.verify!(token, req);
      if (principal === undefined) throw new AccessDeniedError('invalid_token', 'Invalid token: the server does not accept it');
      return principal;
    };
    const authentication: Authentication = {
      async authenticate(req) {
        try {
          return await dpop.authenticate(req, (token) => verify(token, req));
        } catch (error) {
          if (!(error instanceof AccessDeniedError)) host.reportError('a token could not be checked', error);
          throw error;
        }
      },
      challenge: (challenge) =>
        dpop.challenge(withDefaultScopes(challenge, options.defaultScopes ?? options.scopesSupported), (scheme, said, extra) =>
          schemeChallenge(scheme, metadata.url, said, extra),
        ),
      allowAnonymous: options.allowAnonymous ?? false,
      localPrincipal: options.stdio,
      documents: new Map(metadata.paths.map((path) => [path, metadata.document])),
    };
    host.provide(AuthenticationService, authentication);
  },
};

function checkOptions(options: AuthOptions | undefined): asserts options is AuthOptions {
  const fail = (message: string) => {
    throw new DefinitionError('INVALID_OPTION', `@typemcp/auth: ${message}`);
  };
  if (typeof options !== 'object' || options === null) return fail('options are required: server.plugin(auth, { resource, issuer })');
  for (const key of ['resource', 'issuer'] as const) {
    if (typeof options[key] !== 'string' || !URL.canParse(options[key])) fail(`${key} must be an absolute URL, not ${JSON.stringify(options[key])}`);
  }
  if (options.jwks !== undefined && options.jwksUri !== undefined) fail('give jwks or jwksUri, not both');
  if (options.verify !== undefined && typeof options.verify !== 'function') fail('verify must be a function (token, req) => principal');
  if (options.stdio !== undefined && (typeof options.stdio?.subject !== 'string' || !Array.isArray(options.stdio.scopes))) {
    fail('stdio must be a principal: { subject, scopes, claims }');
  }
}
