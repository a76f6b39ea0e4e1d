import { AccessDeniedError, AuthenticationService } from '@typemcp/core';
import type { Authentication, Plugin, Principal } from '@typemcp/core';
import { bearerChallenge, bearerToken } from '../challenge';
import { AuthorizationServer } from './AuthorizationServer';
import type { SignInOptions } from './options';
import type { VerifiedAccessToken } from './tokens/AccessTokens';
import { settingsOf } from './settings';

/**
 * Sign-in for a remote MCP server: an OAuth 2.1 authorization server served beside the MCP
 * endpoint (metadata, authorization with PKCE and consent, tokens, registration, revocation,
 * keys), and the resource server that accepts what it issues. Clients register by a Client
 * ID Metadata Document or by Dynamic Client Registration; who the user is stays the app's
 * (`authenticate`). Add with `server.plugin(signIn, { resource, authenticate, secret })`.
 */
export const signIn: Plugin<SignInOptions> = {
  name: '@typemcp/auth/sign-in',
  version: '0.1.0',
  register(host, options) {
    const settings = settingsOf(options);
    const server = new AuthorizationServer(settings, options.metadataDocuments, () => host.declaredScopes(), options.serviceName ?? host.serverInfo.name);
    host.httpStage({ name: 'sign-in', before: 'documents', handle: (request) => server.handle(request) });
    const verifyToken = async (authorization: string | undefined): Promise<VerifiedAccessToken | undefined> => {
      let token: string | undefined;
      try {
        token = bearerToken(authorization);
      } catch (error) {
        throw new AccessDeniedError('invalid_token', `Invalid token: ${(error as Error).message}`);
      }
      return token === undefined ? undefined : server.accessTokens.verify(token, settings.resource);
    };
    // The HTTP handler answers 500 for what is not a refusal, without its cause: the operator hears it here.
    const reported = <T>(work: Promise<T>): Promise<T> =>
      work.catch((error: unknown) => {
        if (!(error instanceof AccessDeniedError)) host.reportError('a token could not be checked', error);
        throw error;
      });
    const authentication: Authentication = {
      async authenticate(req) {
        const authorization = req.headers.get('authorization') ?? undefined;
        // A token verified before skips the syntax check too: it passed it then.
        const verified = (authorization?.startsWith('Bearer ') ? server.accessTokens.cached(authorization.slice(7)) : undefined) ?? (await reported(verifyToken(authorization)));
        if (verified === undefined) return undefined;
        const grant = await reported(settings.store.grants.get(verified.grantId));
        if (grant === undefined || grant.revoked) throw new AccessDeniedError('invalid_token', 'Invalid token: its grant was revoked or has ended; sign in again');
        return verified.principal satisfies Principal;
      },
      // Without credentials the client learns which scopes to ask for (MCP authorization, scope selection).
      challenge: (challenge) =>
        bearerChallenge(settings.endpoints.resourceMetadataUrl, challenge.error === undefined && (challenge.scopes ?? []).length === 0 ? { scopes: server.defaultScopes() } : challenge),
      allowAnonymous: options.allowAnonymous ?? false,
      localPrincipal: options.stdio,
    };
    host.provide(AuthenticationService, authentication);
  },
};
