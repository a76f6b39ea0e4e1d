import { AccessDeniedError, DefinitionError } from '@typemcp/core';
import type { HttpStageReply, HttpStageRequest, PluginHost } from '@typemcp/core';
import * as oauth from 'oauth4webapi';
import { matchesRedirectUri } from '../clients/Client';
import type { OAuthClient } from '../clients/Client';
import { UnknownClientError } from '../ClientDirectory';
import { absoluteUrl, htmlReply, redirectReply, singleParams, withQuery } from '../http';
import type { SignInOptions, SignInRequest, SignInUser } from '../options';
import { errorPage } from '../pages/html';
import type { ServerParts } from '../parts';
import { settingsOf } from '../settings';
import type { Settings } from '../settings';
import type { GrantStore, SignInStore } from '../store/SignInStore';
import { equalStrings, randomToken, sha256 } from '../tokens/secrets';
import { UpstreamProvider } from './providers';
import type { UpstreamTokenSet } from './providers';
import { registerUpstreamSource } from './registry';
import type { UpstreamTokenSource } from './registry';
import { MemoryUpstreamSessionStore } from './store';
import type { UpstreamSessionEntry, UpstreamSessionStore } from './store';
import { Vault } from './vault';

/** `signIn`'s options when users sign in at an identity provider: `upstream` instead of `authenticate`. */
export type UpstreamSignInOptions = Omit<SignInOptions, 'authenticate'> & {
  /** The provider users sign in at: `oidcUpstream`, `githubUpstream`, `googleUpstream` or `entraUpstream`. */
  readonly upstream: UpstreamProvider;
  readonly authenticate?: undefined;
};

/** How long the browser has to come back from the provider, and then to answer the consent page. */
const LOGIN_TTL_SEC = 600;
const LOGIN_COOKIE = 'typemcp_upstream_login_';
const SESSION_COOKIE = 'typemcp_upstream_session';

/** The upstream leg as the browser's cookie keeps it, sealed: nobody but this server reads or changes it. */
interface PendingLogin {
  readonly state: string;
  readonly verifier: string;
  readonly nonce: string | undefined;
  /** The MCP authorization request it serves: where the browser returns, and whose client hears of errors. */
  readonly authorize: string;
  readonly expiresAt: number;
}

/** What an upstream session seals. */
interface SessionContent {
  readonly tokens: UpstreamTokenSet;
  /** Epoch ms when the access token was obtained (its lifetime decides how early it is refreshed). */
  readonly obtainedAt: number;
  readonly user: { readonly id: string; readonly name: string; readonly roles?: readonly string[]; readonly scopes?: readonly string[] };
}

/**
 * The authorization server as a proxy to an upstream identity provider. MCP clients still
 * register and get this server's tokens; `authenticate` sends the browser to the provider
 * (code flow, PKCE, nonce; its state sealed in a cookie) and `/oauth/upstream/callback` takes
 * the answer, keeps the provider's tokens sealed under signIn's `secret`, and returns to the
 * MCP authorization. The tokens belong to the one MCP grant made from that authorization:
 * refreshed for its tools, revoked at the provider whenever the grant is revoked.
 */
export class UpstreamProxy implements UpstreamTokenSource {
  readonly settings: Settings;
  readonly provider: UpstreamProvider;
  private readonly grants: GrantStore;
  private readonly sessions: UpstreamSessionStore;
  private readonly tokenVault: Vault;
  private readonly loginVault: Vault;
  private readonly callbackUrl: string;
  private readonly callbackPath: string;
  private readonly authorizePath: string;
  private readonly consentPath: string;
  private readonly cookiePath: string;
  private readonly secure: boolean;
  private readonly refreshing = new Map<string, Promise<UpstreamTokenSet>>();

  constructor(
    options: UpstreamSignInOptions,
    private readonly host: Pick<PluginHost, 'reportError' | 'onClose'>,
    private readonly serviceName: string,
  ) {
    if (!(options.upstream instanceof UpstreamProvider)) {
      throw new DefinitionError('INVALID_OPTION', 'signIn: upstream must be made by oidcUpstream, githubUpstream, googleUpstream or entraUpstream');
    }
    if (options.authenticate !== undefined) throw new DefinitionError('INVALID_OPTION', 'signIn: give authenticate or upstream, not both: with upstream, the provider says who the user is');
    const base = settingsOf({ ...options, authenticate: (request) => this.authenticate(request) });
    this.grants = base.store.grants;
    this.settings = { ...base, store: this.withUpstreamRevocation(base.store) };
    this.provider = options.upstream;
    this.sessions = options.upstream.store ?? new MemoryUpstreamSessionStore(base.now);
    this.tokenVault = new Vault(base.secret, 'upstream tokens');
    this.loginVault = new Vault(base.secret, 'upstream login');
    this.callbackUrl = `${base.issuer}/oauth/upstream/callback`;
    this.callbackPath = new URL(this.callbackUrl).pathname;
    this.authorizePath = new URL(base.endpoints.authorize).pathname;
    this.consentPath = new URL(base.endpoints.consent).pathname;
    this.cookiePath = this.authorizePath.replace(/\/authorize$/, '');
    this.secure = new URL(base.issuer).protocol === 'https:';
    host.onClose(registerUpstreamSource(base.issuer, this));
  }

  /** The upstream callback; undefined, at once, for every other path. */
  handle(request: HttpStageRequest, parts: ServerParts): Promise<HttpStageReply> | undefined {
    if (request.pathname !== this.callbackPath) return undefined;
    return this.callback(request, parts);
  }

  /** The user of a request to the authorization server's pages, or the way to the provider. */
  async authenticate(request: SignInRequest): Promise<SignInUser | Response> {
    const url = new URL(request.url);
    const sessionId = cookieOf(request.headers, SESSION_COOKIE);
    const entry = sessionId === undefined ? undefined : await this.sessions.get(sessionId);
    // A session serves the one MCP authorization it was made for (then its consent), and no grant yet holds it.
    if (sessionId !== undefined && entry !== undefined && entry.grantId === undefined) {
      const forThis = url.pathname === this.consentPath || (url.pathname === this.authorizePath && equalStrings(entry.binding, await bindingOf(url.searchParams)));
      if (forThis) {
        const { user } = await this.tokenVault.open<SessionContent>(sessionId, entry.sealed);
        return { ...user, upstream: sessionId };
      }
    }
    if (url.pathname !== this.authorizePath) return pageResponse(400, 'This sign-in took too long or was finished already. Start it again from the application.');
    return this.startLogin(url);
  }

  /** The grant's upstream access token, refreshed when it expired. */
  async accessToken(grantId: string): Promise<string> {
    const { content } = await this.session(grantId);
    if (isFresh(content, this.settings.now())) return content.tokens.accessToken;
    const sessionId = (await this.grants.get(grantId))!.user.upstream!;
    let running = this.refreshing.get(sessionId);
    if (running === undefined) {
      running = this.refresh(grantId).finally(() => this.refreshing.delete(sessionId));
      this.refreshing.set(sessionId, running);
    }
    return (await running).accessToken;
  }

  private async startLogin(authorize: URL): Promise<Response> {
    let as: oauth.AuthorizationServer;
    try {
      as = await this.provider.metadata();
      if (as.authorization_endpoint === undefined) throw new Error('its metadata names no authorization_endpoint');
    } catch (error) {
      this.host.reportError(`the sign-in at ${this.provider.name} could not start`, error);
      // The authorize endpoint checked the client and its redirect URI before asking who the user is.
      return new Response(null, { status: 303, headers: { location: clientError(authorize, 'server_error', `${this.provider.name} cannot be reached`, this.settings.issuer), 'cache-control': 'no-store' } });
    }
    const login: PendingLogin = {
      state: oauth.generateRandomState(),
      verifier: oauth.generateRandomCodeVerifier(),
      nonce: this.provider.oidc ? oauth.generateRandomNonce() : undefined,
      authorize: authorize.href,
      expiresAt: this.settings.now() + LOGIN_TTL_SEC * 1000,
    };
    const target = new URL(as.authorization_endpoint);
    const params: Record<string, string> = {
      ...this.provider.authorizationParams,
      client_id: this.provider.clientId,
      redirect_uri: this.callbackUrl,
      response_type: 'code',
      scope: this.provider.scopes.join(' '),
      state: login.state,
      code_challenge: await oauth.calculatePKCECodeChallenge(login.verifier),
      code_challenge_method: 'S256',
      ...(login.nonce !== undefined ? { nonce: login.nonce } : {}),
    };
    for (const [name, value] of Object.entries(params)) target.searchParams.set(name, value);
    // One cookie per upstream leg (named by its state): sign-ins in two tabs do not overwrite each other.
    const cookie = this.cookie(await loginCookieName(login.state), await this.loginVault.seal('login', login), this.callbackPath, LOGIN_TTL_SEC);
    return new Response(null, { status: 303, headers: { location: target.href, 'set-cookie': cookie, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' } });
  }

  /** `GET /oauth/upstream/callback`: the provider's answer, checked against the browser's cookie. */
  private async callback(request: HttpStageRequest, parts: ServerParts): Promise<HttpStageReply> {
    const page = (status: number, message: string) => htmlReply(status, errorPage('This sign-in cannot continue', message));
    if (request.method !== 'GET') return htmlReply(405, errorPage('Method not allowed', `${this.provider.name} returns here with a GET.`), { allow: 'GET' });
    const url = absoluteUrl(request, this.settings.origin);
    let params: Map<string, string>;
    try {
      params = singleParams(url.searchParams);
    } catch (error) {
      return page(400, (error as Error).message);
    }
    const state = params.get('state');
    // No redirect before the cookie vouches for the request: the client to send the browser to comes from it.
    const login = state === undefined ? undefined : await this.pendingLogin(request, state);
    if (login === undefined) return page(400, `This answer from ${this.provider.name} does not belong to a sign-in started in this browser, or the sign-in took too long. Start it again from the application.`);
    const authorize = new URL(login.authorize);
    let client: OAuthClient;
    try {
      client = await parts.clients.find(authorize.searchParams.get('client_id') ?? '');
    } catch (error) {
      if (error instanceof UnknownClientError) return page(400, `The application cannot sign in here: ${error.message}.`);
      throw error;
    }
    if (!matchesRedirectUri(client, authorize.searchParams.get('redirect_uri') ?? '')) return page(400, 'The application no longer registers the address it asked to return to.');
    const toClient = (error: string, description: string) => redirectReply(clientError(authorize, error, description, this.settings.issuer));
    const { provider } = this;
    let as: oauth.AuthorizationServer;
    let result: oauth.TokenEndpointResponse;
    try {
      as = await provider.metadata();
      // The state, and the iss of RFC 9207 where the provider sends it (mix-up).
      const answer = oauth.validateAuthResponse(as, provider.client, url, login.state);
      const response = await oauth.authorizationCodeGrantRequest(as, provider.client, provider.clientAuth, answer, this.callbackUrl, login.verifier, provider.requestOptions());
      result = await oauth.processAuthorizationCodeResponse(as, provider.client, response, provider.oidc ? { expectedNonce: login.nonce, requireIdToken: true } : {});
    } catch (error) {
      if (error instanceof oauth.AuthorizationResponseError && error.error === 'access_denied') return toClient('access_denied', `The sign-in at ${provider.name} was declined`);
      this.host.reportError(`the sign-in at ${provider.name} failed`, error);
      return toClient('server_error', `The sign-in at ${provider.name} failed`);
    }
    const now = this.settings.now();
    const tokens = tokenSetOf(result, undefined, now);
    let user: SessionContent['user'];
    try {
      const identity = await provider.identity(as, result);
      const refusal = provider.refusal(identity);
      const access = refusal === undefined ? await provider.map(identity) : false;
      if (access === false) {
        await this.revokeQuietly(tokens);
        return toClient('access_denied', refusal ?? `This ${provider.name} account may not use ${this.serviceName}`);
      }
      user = {
        id: identity.subject,
        name: identity.name ?? identity.email ?? identity.subject,
        ...(access.roles !== undefined ? { roles: stringsOf(access.roles, 'roles') } : {}),
        ...(access.scopes !== undefined ? { scopes: stringsOf(access.scopes, 'scopes') } : {}),
      };
    } catch (error) {
      this.host.reportError(`the user signed in at ${provider.name} could not be read`, error);
      await this.revokeQuietly(tokens);
      return toClient('server_error', `The sign-in at ${provider.name} failed`);
    }
    const sessionId = randomToken();
    const content: SessionContent = { tokens, obtainedAt: now, user };
    await this.sessions.add(sessionId, { sealed: await this.tokenVault.seal(sessionId, content), binding: await bindingOf(authorize.searchParams), version: 0 }, LOGIN_TTL_SEC);
    const back = redirectReply(authorize.href);
    return { ...back, headers: { ...back.headers, 'set-cookie': this.cookie(SESSION_COOKIE, sessionId, this.cookiePath, LOGIN_TTL_SEC) } };
  }

  private async pendingLogin(request: HttpStageRequest, state: string): Promise<PendingLogin | undefined> {
    const sealed = cookieOf(request.headers, await loginCookieName(state));
    if (sealed === undefined) return undefined;
    try {
      const login = await this.loginVault.open<PendingLogin>('login', sealed);
      return equalStrings(login.state, state) && login.expiresAt > this.settings.now() ? login : undefined;
    } catch {
      return undefined;
    }
  }

  /** The upstream session of a live grant, opened; refuses (invalid_token) when there is none. */
  private async session(grantId: string): Promise<{ sessionId: string; entry: UpstreamSessionEntry; content: SessionContent }> {
    const grant = await this.grants.get(grantId);
    const sessionId = grant?.user.upstream;
    const entry = sessionId === undefined || grant?.revoked ? undefined : await this.sessions.get(sessionId);
    if (sessionId === undefined || entry === undefined || entry.grantId !== grantId) {
      throw new AccessDeniedError('invalid_token', `The sign-in at ${this.provider.name} has ended; sign in again`);
    }
    return { sessionId, entry, content: await this.tokenVault.open<SessionContent>(sessionId, entry.sealed) };
  }

  private async refresh(grantId: string): Promise<UpstreamTokenSet> {
    const { provider } = this;
    for (let attempt = 0; attempt < 3; attempt++) {
      const { sessionId, entry, content } = await this.session(grantId);
      // Another replica may have refreshed it meanwhile.
      if (isFresh(content, this.settings.now())) return content.tokens;
      const refreshToken = content.tokens.refreshToken;
      if (refreshToken === undefined) {
        await this.settings.store.grants.revoke(grantId);
        throw new AccessDeniedError('invalid_token', `The access at ${provider.name} expired and cannot be renewed; sign in again`);
      }
      let result: oauth.TokenEndpointResponse;
      try {
        const as = await provider.metadata();
        const response = await oauth.refreshTokenGrantRequest(as, provider.client, provider.clientAuth, refreshToken, provider.requestOptions());
        result = await oauth.processRefreshTokenResponse(as, provider.client, response);
      } catch (error) {
        if (error instanceof oauth.ResponseBodyError && error.error === 'invalid_grant') {
          // The provider ended the sign-in (revoked there, expired): so does this server.
          await this.settings.store.grants.revoke(grantId);
          throw new AccessDeniedError('invalid_token', `The sign-in at ${provider.name} has ended; sign in again`);
        }
        throw new Error(`the access token at ${provider.name} could not be refreshed`, { cause: error });
      }
      const now = this.settings.now();
      const next: SessionContent = { ...content, tokens: tokenSetOf(result, refreshToken, now), obtainedAt: now };
      const sealed = await this.tokenVault.seal(sessionId, next);
      if (await this.sessions.replace(sessionId, entry.version, { ...entry, sealed, version: entry.version + 1 }, this.settings.refreshTokenTtlSec)) return next.tokens;
    }
    throw new Error(`the access token at ${provider.name} keeps changing under this replica`);
  }

  /** Every path that revokes a grant (revocation, refresh-token reuse, code replay, PKCE failure) goes through `grants.revoke`. */
  private withUpstreamRevocation(store: SignInStore): SignInStore {
    const grants = store.grants;
    const wrapped: GrantStore = {
      get: (grantId) => grants.get(grantId),
      add: async (grant, ttlSec) => {
        await grants.add(grant, ttlSec);
        if (grant.user.upstream !== undefined) await this.claim(grant.id, grant.user.upstream, ttlSec);
      },
      rotate: async (grantId, expectedHash, next, ttlSec) => {
        const rotated = await grants.rotate(grantId, expectedHash, next, ttlSec);
        if (rotated) await this.extend(grantId, ttlSec);
        return rotated;
      },
      revoke: async (grantId) => {
        await grants.revoke(grantId);
        await this.endGrant(grantId);
      },
    };
    return {
      clients: store.clients,
      codes: store.codes,
      grants: wrapped,
      consents: store.consents,
      requests: store.requests,
      keys: store.keys,
      counters: store.counters,
      ...(store.documents !== undefined ? { documents: store.documents } : {}),
    };
  }

  /** The new grant holds the upstream session: one grant per upstream sign-in, kept as long as the grant. */
  private async claim(grantId: string, sessionId: string, ttlSec: number): Promise<void> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const entry = await this.sessions.get(sessionId);
      if (entry === undefined) return;
      if (entry.grantId !== undefined && entry.grantId !== grantId) {
        // A second code from the same upstream sign-in: its grant gets no tokens of another's.
        await this.grants.revoke(grantId);
        return;
      }
      if (await this.sessions.replace(sessionId, entry.version, { ...entry, grantId, version: entry.version + 1 }, ttlSec)) break;
    }
    // A replayed code may have revoked the grant before it was added.
    if ((await this.grants.get(grantId))?.revoked) await this.endGrant(grantId);
  }

  private async extend(grantId: string, ttlSec: number): Promise<void> {
    const sessionId = (await this.grants.get(grantId))?.user.upstream;
    const entry = sessionId === undefined ? undefined : await this.sessions.get(sessionId);
    if (sessionId !== undefined && entry !== undefined && entry.grantId === grantId) await this.sessions.replace(sessionId, entry.version, { ...entry, version: entry.version + 1 }, ttlSec);
  }

  /** Forgets the grant's upstream tokens and revokes them at the provider (once: whoever takes the entry). */
  private async endGrant(grantId: string): Promise<void> {
    const sessionId = (await this.grants.get(grantId))?.user.upstream;
    if (sessionId === undefined) return;
    const entry = await this.sessions.get(sessionId);
    if (entry === undefined || (entry.grantId !== undefined && entry.grantId !== grantId)) return;
    const taken = await this.sessions.take(sessionId);
    if (taken === undefined) return;
    try {
      const { tokens } = await this.tokenVault.open<SessionContent>(sessionId, taken.sealed);
      await this.revokeQuietly(tokens);
    } catch (error) {
      this.host.reportError(`the tokens of a sign-in at ${this.provider.name} could not be opened to revoke them`, error);
    }
  }

  /** Revocation at the provider must not stop the MCP grant's: a failure is reported, not thrown. */
  private async revokeQuietly(tokens: UpstreamTokenSet): Promise<void> {
    try {
      await this.provider.revoke(tokens);
    } catch (error) {
      this.host.reportError(`tokens could not be revoked at ${this.provider.name}`, error);
    }
  }

  private cookie(name: string, value: string, path: string, maxAgeSec: number): string {
    // Lax: the provider's redirect back is a top-level GET from another site, which must carry it.
    return `${name}=${value}; Path=${path}; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSec}${this.secure ? '; Secure' : ''}`;
  }
}

/** The MCP authorization request a session was made for: its client, redirect, state and PKCE challenge. */
async function bindingOf(params: URLSearchParams): Promise<string> {
  return sha256(JSON.stringify(['client_id', 'redirect_uri', 'state', 'code_challenge'].map((name) => params.get(name))));
}

/** The login cookie's name: from the state, hashed so the attacker-given parameter never shapes a header. */
async function loginCookieName(state: string): Promise<string> {
  return `${LOGIN_COOKIE}${(await sha256(state)).slice(0, 16)}`;
}

function cookieOf(headers: { get(name: string): string | null }, name: string): string | undefined {
  for (const part of (headers.get('cookie') ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

function clientError(authorize: URL, error: string, description: string, issuer: string): string {
  return withQuery(authorize.searchParams.get('redirect_uri') ?? '', { error, error_description: description, state: authorize.searchParams.get('state') ?? undefined, iss: issuer });
}

function pageResponse(status: number, message: string): Response {
  const reply = htmlReply(status, errorPage('This sign-in cannot continue', message));
  return new Response(reply.body, { status, headers: reply.headers });
}

function tokenSetOf(result: oauth.TokenEndpointResponse, previousRefreshToken: string | undefined, now: number): UpstreamTokenSet {
  const refreshToken = result.refresh_token ?? previousRefreshToken;
  return {
    accessToken: result.access_token,
    ...(refreshToken !== undefined ? { refreshToken } : {}),
    ...(typeof result.expires_in === 'number' ? { expiresAt: now + result.expires_in * 1000 } : {}),
    ...(result.scope !== undefined ? { scope: result.scope } : {}),
  };
}

/** Valid for a while yet: a quarter of its lifetime, at most 30 s, is kept in hand for the call it is used for. */
function isFresh(content: SessionContent, now: number): boolean {
  const { expiresAt } = content.tokens;
  if (expiresAt === undefined) return true;
  return expiresAt - Math.min(30_000, (expiresAt - content.obtainedAt) / 4) > now;
}

function stringsOf(value: unknown, what: string): string[] {
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) throw new TypeError(`the upstream mapping must answer ${what} as an array of strings`);
  return [...value];
}
