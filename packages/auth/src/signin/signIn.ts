import { AccessDeniedError, AuthenticationService } from '@typemcp/core';
import type { Authentication, Plugin, Principal } from '@typemcp/core';
import { schemeChallenge, withDefaultScopes } from '../challenge';
import { ResourceDpop } from '../dpop/resource';
import { dpopSettingsOf } from '../dpop/settings';
import { AuthorizationServer } from './AuthorizationServer';
import type { SignInOptions } from './options';
import { settingsOf } from './settings';
import { UpstreamProxy } from './upstream/UpstreamProxy';
import type { UpstreamSignInOptions } from './upstream/UpstreamProxy';

/**
 * Sign-in for a remote MCP server: an OAuth 2.1 authorization server served beside the MCP
 * endpoint (metadata, authorization with PKCE and consent, tokens, registration, revocation,
 * keys), and the resource server that accepts what it issues. Clients register by a Client
 * ID Metadata Document or by Dynamic Client Registration; who the user is stays the app's
 * (`authenticate`), or the identity provider's it proxies to (`upstream`: GitHub, Google, Entra
 * ID, any OpenID Connect provider). Add with `server.plugin(signIn, { resource, authenticate, secret })`.
 */
export const signIn: Plugin<SignInOptions | UpstreamSignInOptions> = {
  name: '@typemcp/auth/sign-in',
  version: '0.1.0',
  register(host, options) {
    const serviceName = options?.serviceName ?? host.serverInfo.name;
    // With an upstream provider, it says who the user is, and its callback is served beside the endpoints.
    const proxy = typeof options === 'object' && options !== null && 'upstream' in options && options.upstream !== undefined ? new UpstreamProxy(options as UpstreamSignInOptions, host, serviceName) : undefined;
    const settings = proxy?.settings ?? settingsOf(options as SignInOptions);
    // One DPoP configuration for both sides: the token endpoint binds tokens, the resource checks them.
    const dpopSettings = dpopSettingsOf(options.dpop, 'signIn', settings.now, settings.secret);
    const server = new AuthorizationServer(settings, options.metadataDocuments, () => host.declaredScopes(), serviceName, dpopSettings);
    host.httpStage({ name: 'sign-in', before: 'documents', handle: (request) => proxy?.handle(request, server) ?? server.handle(request) });
    const dpop = new ResourceDpop(dpopSettings, new URL(settings.resource).origin);
    const verifyToken = async (token: string): Promise<Principal> => {
      // A token verified before skips the signature check.
      const verified = server.accessTokens.cached(token) ?? (await server.accessTokens.verify(token, settings.resource));
      const grant = await settings.store.grants.get(verified.grantId);
      if (grant === undefined || grant.revoked) throw new AccessDeniedError('invalid_token', 'Invalid token: its grant was revoked or has ended; sign in again');
      return verified.principal;
    };
    // The HTTP handler answers 500 for what is not a refusal, without its cause: the operator hears it here.
    const reported = <T>(work: Promise<T>): Promise<T> =>
      work.catch((error: unknown) => {
        if (!(error instanceof AccessDeniedError)) host.reportError('a token could not be checked', error);
        throw error;
      });
    const authentication: Authentication = {
      authenticate: (req) => reported(dpop.authenticate(req, verifyToken)),
      challenge: (challenge) =>
        dpop.challenge(withDefaultScopes(challenge, server.defaultScopes()), (scheme, said, extra) =>
          schemeChallenge(scheme, settings.endpoints.resourceMetadataUrl, said, extra),
        ),
      allowAnonymous: options.allowAnonymous ?? false,
      localPrincipal: options.stdio,
    };
    host.provide(AuthenticationService, authentication);
  },
};
