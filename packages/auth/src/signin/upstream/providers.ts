import { DefinitionError } from '@typemcp/core';
import * as oauth from 'oauth4webapi';
import type { Principal } from '@typemcp/core';
import { upstreamToken } from './registry';
import type { UpstreamSessionStore } from './store';

/** Who signed in at the provider, as the provider says. */
export interface UpstreamIdentity {
  /** Stable at the provider: OIDC's `sub`, GitHub's numeric user id. Becomes `ctx.principal.subject`. */
  readonly subject: string;
  readonly email?: string;
  readonly emailVerified?: boolean;
  readonly name?: string;
  /** The provider's groups, roles or teams (OIDC: the claims `groupsClaims` names; GitHub: orgs and `org/team`). */
  readonly groups: readonly string[];
  /** Everything the provider said of the user (ID token and userinfo claims, or GitHub's `/user`). */
  readonly claims: Readonly<Record<string, unknown>>;
}

/** What a user may do here: their roles (`@Roles`) and the scopes they may grant (`@Scopes`). */
export interface UpstreamAccess {
  readonly roles?: readonly string[];
  /** The scopes this user may grant a client; the consent page offers only these. Undefined: every scope. */
  readonly scopes?: readonly string[];
}

/** From the provider's identity to access here; `false` refuses the user (`access_denied` to the client). */
export type UpstreamMapping = (identity: UpstreamIdentity) => UpstreamAccess | false | Promise<UpstreamAccess | false>;

/** The upstream tokens of one sign-in, as kept (sealed) on this server. */
export interface UpstreamTokenSet {
  readonly accessToken: string;
  readonly refreshToken?: string;
  /** Epoch milliseconds; undefined when the provider did not say (GitHub's OAuth apps: they do not expire). */
  readonly expiresAt?: number;
  readonly scope?: string;
}

/** Options every provider takes. */
export interface UpstreamOptions {
  /** The client id this server has at the provider (a confidential client). */
  readonly clientId: string;
  /** Its client secret: keep it out of the code. */
  readonly clientSecret: string;
  /** Scopes asked of the provider, replacing the preset's. */
  readonly scopes?: readonly string[];
  /** Roles and scopes by identity; default: no roles, every scope. `mapGroups` builds one from a table. */
  readonly map?: UpstreamMapping;
  /** Where upstream sign-ins are kept; default this process's memory (replicas need a shared one). */
  readonly store?: UpstreamSessionStore;
  /** Requests to the provider take at most this long; default 10000 ms. */
  readonly timeoutMs?: number;
  /** Fetches for the requests to the provider (egress proxies, tests); default the global fetch. */
  readonly fetch?: typeof fetch;
}

/** Any OpenID Connect provider, found by its issuer (discovery). */
export interface OidcUpstreamOptions extends UpstreamOptions {
  /** The provider's issuer identifier: its discovery document is `<issuer>/.well-known/openid-configuration`. */
  readonly issuer: string;
  /** The provider's name on pages and in messages; default the issuer's host. */
  readonly name?: string;
  /** Further parameters of the authorization request (`prompt`, `access_type`, …). */
  readonly authorizationParams?: Readonly<Record<string, string>>;
  /** The claims that hold the user's groups or roles; default `['groups']`. */
  readonly groupsClaims?: readonly string[];
}

interface ProviderSpec {
  readonly name: string;
  /** The provider speaks OpenID Connect: an ID token with a nonce is required. */
  readonly oidc: boolean;
  readonly scopes: readonly string[];
  readonly authorizationParams: Readonly<Record<string, string>>;
  /** URLs the provider is reached at (http is allowed on loopback only). */
  readonly urls: readonly string[];
  metadata(provider: UpstreamProvider): Promise<oauth.AuthorizationServer>;
  identity(provider: UpstreamProvider, as: oauth.AuthorizationServer, tokens: oauth.TokenEndpointResponse): Promise<UpstreamIdentity>;
  /** Why this identity may not sign in at all, whatever the mapping (a Google Workspace domain); undefined when it may. */
  refusal?(identity: UpstreamIdentity): string | undefined;
  /** Revokes the tokens at the provider; default RFC 7009 at the metadata's `revocation_endpoint`, when it has one. */
  revoke?(provider: UpstreamProvider, as: oauth.AuthorizationServer, tokens: UpstreamTokenSet): Promise<void>;
}

/**
 * An identity provider users sign in at, for `signIn({ upstream })`: made by `oidcUpstream`,
 * `githubUpstream`, `googleUpstream` or `entraUpstream`. `accessToken(ctx)` gives a tool the
 * signed-in user's upstream access token.
 */
export class UpstreamProvider {
  readonly name: string;
  readonly oidc: boolean;
  readonly clientId: string;
  readonly scopes: readonly string[];
  readonly authorizationParams: Readonly<Record<string, string>>;
  readonly map: UpstreamMapping;
  readonly store: UpstreamSessionStore | undefined;
  readonly client: oauth.Client;
  readonly clientAuth: oauth.ClientAuth;
  private readonly clientSecret: string;
  private readonly timeoutMs: number;
  private readonly insecure: boolean;
  private readonly customFetch: typeof fetch | undefined;
  private discovered: Promise<oauth.AuthorizationServer> | undefined;

  /** @internal Use the factories. */
  constructor(
    private readonly spec: ProviderSpec,
    options: UpstreamOptions,
  ) {
    const fail = (message: string): never => {
      throw new DefinitionError('INVALID_OPTION', `${spec.name} upstream: ${message}`);
    };
    if (typeof options?.clientId !== 'string' || options.clientId === '') fail('clientId is required: the client id this server has at the provider');
    if (typeof options.clientSecret !== 'string' || options.clientSecret === '') fail('clientSecret is required (read it from the environment)');
    for (const url of spec.urls) {
      const parsed = URL.canParse(url) ? new URL(url) : fail(`${url} is not an absolute URL`);
      if (parsed.protocol !== 'https:' && !(parsed.protocol === 'http:' && isLoopback(parsed.hostname))) fail(`${url} must be https (http only on 127.0.0.1, [::1] or localhost)`);
    }
    this.name = spec.name;
    this.oidc = spec.oidc;
    this.clientId = options.clientId;
    this.clientSecret = options.clientSecret;
    this.scopes = options.scopes ?? spec.scopes;
    this.authorizationParams = spec.authorizationParams;
    this.map = options.map ?? (() => ({}));
    this.store = options.store;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.customFetch = options.fetch;
    this.insecure = spec.urls.some((url) => new URL(url).protocol === 'http:');
    this.client = { client_id: options.clientId };
    this.clientAuth = oauth.ClientSecretBasic(options.clientSecret);
  }

  /** The provider's metadata: discovered once (a failed discovery is tried again next time). */
  metadata(): Promise<oauth.AuthorizationServer> {
    if (this.discovered === undefined) {
      const discovered = this.spec.metadata(this);
      this.discovered = discovered;
      discovered.catch(() => {
        if (this.discovered === discovered) this.discovered = undefined;
      });
    }
    return this.discovered;
  }

  /** Options of every request to the provider. */
  requestOptions(): { signal: () => AbortSignal; [oauth.customFetch]?: typeof fetch; [oauth.allowInsecureRequests]?: boolean } {
    return {
      signal: () => AbortSignal.timeout(this.timeoutMs),
      ...(this.customFetch !== undefined ? { [oauth.customFetch]: this.customFetch } : {}),
      ...(this.insecure ? { [oauth.allowInsecureRequests]: true } : {}),
    };
  }

  /** A plain request to the provider, with the same fetch and timeout. */
  fetch(url: string, init: RequestInit): Promise<Response> {
    return (this.customFetch ?? fetch)(url, { ...init, signal: AbortSignal.timeout(this.timeoutMs) });
  }

  /** The basic authentication (RFC 7617) of this client, for provider APIs outside OAuth (GitHub's). */
  basicAuthorization(): string {
    const bytes = new TextEncoder().encode(`${this.clientId}:${this.clientSecret}`);
    return `Basic ${btoa(String.fromCharCode(...bytes))}`;
  }

  /**
   * The signed-in user's access token at this provider, refreshed when it expired: for a tool
   * (`await github.accessToken(ctx)`). Never log it or return it. See `upstreamToken`.
   */
  accessToken(ctx: { readonly principal?: Principal }): Promise<string> {
    return upstreamToken(ctx, this);
  }

  identity(as: oauth.AuthorizationServer, tokens: oauth.TokenEndpointResponse): Promise<UpstreamIdentity> {
    return this.spec.identity(this, as, tokens);
  }

  refusal(identity: UpstreamIdentity): string | undefined {
    return this.spec.refusal?.(identity);
  }

  /** Revokes the refresh token, then the access token, where the provider can. */
  async revoke(tokens: UpstreamTokenSet): Promise<void> {
    const as = await this.metadata();
    if (this.spec.revoke !== undefined) return this.spec.revoke(this, as, tokens);
    if (as.revocation_endpoint === undefined) return;
    for (const [token, hint] of [
      [tokens.refreshToken, 'refresh_token'],
      [tokens.accessToken, 'access_token'],
    ] as const) {
      if (token === undefined) continue;
      const response = await oauth.revocationRequest(as, this.client, this.clientAuth, token, { ...this.requestOptions(), additionalParameters: { token_type_hint: hint } });
      await oauth.processRevocationResponse(response);
    }
  }
}

/** Any OpenID Connect provider by its issuer: discovery, the code flow with PKCE and a nonce, the ID token and userinfo. */
export function oidcUpstream(options: OidcUpstreamOptions): UpstreamProvider {
  const issuer = options?.issuer;
  const scopes = options?.scopes ?? ['openid', 'profile', 'email', 'offline_access'];
  // OIDC Core §11: offline_access is granted only with prompt=consent (others ignore it, or answer without a refresh token).
  const prompt: Record<string, string> = scopes.includes('offline_access') ? { prompt: 'consent' } : {};
  return new UpstreamProvider(
    {
      name: options?.name ?? (typeof issuer === 'string' && URL.canParse(issuer) ? new URL(issuer).host : String(issuer)),
      oidc: true,
      scopes,
      authorizationParams: { ...prompt, ...options?.authorizationParams },
      urls: [typeof issuer === 'string' ? issuer : ''],
      metadata: (provider) => discover(provider, issuer),
      identity: (provider, as, tokens) => oidcIdentity(provider, as, tokens, options.groupsClaims ?? ['groups']),
    },
    options,
  );
}

/** Google: OpenID Connect, with `access_type=offline` and `prompt=consent` so that a refresh token is issued. */
export interface GoogleUpstreamOptions extends UpstreamOptions {
  /** Only users of this Google Workspace domain: asked with `hd` and checked in the ID token's `hd` claim. */
  readonly hostedDomain?: string;
}

/** Google as the provider (OIDC, issuer `https://accounts.google.com`). */
export function googleUpstream(options: GoogleUpstreamOptions): UpstreamProvider {
  const issuer = 'https://accounts.google.com';
  const hd = options?.hostedDomain;
  return new UpstreamProvider(
    {
      name: 'Google',
      oidc: true,
      // Google has no offline_access scope: access_type=offline asks for the refresh token, and
      // prompt=consent makes Google issue one again on a later sign-in (it does only on the first otherwise).
      scopes: ['openid', 'email', 'profile'],
      authorizationParams: { access_type: 'offline', prompt: 'consent', ...(hd !== undefined ? { hd } : {}) },
      urls: [issuer],
      metadata: (provider) => discover(provider, issuer),
      identity: (provider, as, tokens) => oidcIdentity(provider, as, tokens, []),
      // The hd parameter only preselects the account: the claim is what proves the domain.
      refusal: (identity) => (hd !== undefined && identity.claims.hd !== hd ? `only accounts of ${hd} may sign in` : undefined),
    },
    options,
  );
}

/** Microsoft Entra ID: one tenant's v2.0 issuer, `offline_access` for the refresh token, groups and app roles. */
export interface EntraUpstreamOptions extends UpstreamOptions {
  /** The directory (tenant) id or a verified domain. `common`, `organizations` and `consumers` are refused. */
  readonly tenant: string;
  /** The cloud's login host; default `https://login.microsoftonline.com` (sovereign clouds have others). */
  readonly authority?: string;
}

/** Entra ID as the provider (OIDC, issuer `<authority>/<tenant>/v2.0`). */
export function entraUpstream(options: EntraUpstreamOptions): UpstreamProvider {
  const tenant = options?.tenant;
  if (typeof tenant !== 'string' || tenant === '' || ['common', 'organizations', 'consumers'].includes(tenant.toLowerCase())) {
    // Multi-tenant endpoints issue ID tokens whose iss is each user's own tenant: nothing fixed to check them against.
    throw new DefinitionError('INVALID_OPTION', `Entra ID upstream: tenant must be your directory (tenant) id or domain, not ${JSON.stringify(tenant)}: a multi-tenant endpoint's tokens name each user's own tenant as issuer`);
  }
  const issuer = `${(options.authority ?? 'https://login.microsoftonline.com').replace(/\/$/, '')}/${encodeURIComponent(tenant)}/v2.0`;
  return new UpstreamProvider(
    {
      name: 'Microsoft Entra ID',
      oidc: true,
      scopes: ['openid', 'profile', 'email', 'offline_access'],
      authorizationParams: {},
      urls: [issuer],
      metadata: (provider) => discover(provider, issuer),
      // Security groups (the app's groupMembershipClaims) and app roles (its appRoles).
      identity: (provider, as, tokens) => oidcIdentity(provider, as, tokens, ['groups', 'roles']),
      // Entra has no revocation endpoint: the tokens are dropped here and expire there.
      revoke: async () => undefined,
    },
    options,
  );
}

/** GitHub: OAuth 2 without OpenID Connect; the user from its REST API. */
export interface GitHubUpstreamOptions extends UpstreamOptions {
  /** Also read the user's organizations and teams as groups (`org`, `org/team`); asks for `read:org`. */
  readonly teams?: boolean;
  /** GitHub Enterprise Server: its web address, e.g. `https://github.example.com`; default `https://github.com`. */
  readonly baseUrl?: string;
  /** Its REST API, default `https://api.github.com` (`<baseUrl>/api/v3` on Enterprise Server). */
  readonly apiUrl?: string;
}

/** GitHub (or GitHub Enterprise Server) as the provider. */
export function githubUpstream(options: GitHubUpstreamOptions): UpstreamProvider {
  const base = (options?.baseUrl ?? 'https://github.com').replace(/\/$/, '');
  const api = (options?.apiUrl ?? (options?.baseUrl === undefined ? 'https://api.github.com' : `${base}/api/v3`)).replace(/\/$/, '');
  return new UpstreamProvider(
    {
      name: 'GitHub',
      oidc: false,
      scopes: options?.teams ? ['read:user', 'user:email', 'read:org'] : ['read:user', 'user:email'],
      authorizationParams: {},
      urls: [base, api],
      // No discovery document: the endpoints are GitHub's documented ones. It accepts PKCE (S256).
      metadata: async () => ({
        issuer: base,
        authorization_endpoint: `${base}/login/oauth/authorize`,
        token_endpoint: `${base}/login/oauth/access_token`,
        code_challenge_methods_supported: ['S256'],
      }),
      identity: async (provider, _as, tokens) => {
        const get = async (path: string) => {
          const response = await provider.fetch(`${api}${path}`, { headers: { authorization: `Bearer ${tokens.access_token}`, accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28' } });
          if (!response.ok) throw new Error(`GitHub's ${path} answered ${response.status}`);
          return response.json() as Promise<unknown>;
        };
        const user = (await get('/user')) as Record<string, unknown>;
        if (typeof user.id !== 'number' && typeof user.id !== 'string') throw new Error("GitHub's /user named no id");
        const groups: string[] = [];
        if (options.teams) {
          for (const org of (await get('/user/orgs')) as Array<{ login?: unknown }>) if (typeof org.login === 'string') groups.push(org.login);
          for (const team of (await get('/user/teams')) as Array<{ slug?: unknown; organization?: { login?: unknown } }>) {
            if (typeof team.slug === 'string' && typeof team.organization?.login === 'string') groups.push(`${team.organization.login}/${team.slug}`);
          }
        }
        return {
          // The numeric id: a login can be renamed and then taken by someone else.
          subject: String(user.id),
          name: typeof user.name === 'string' && user.name !== '' ? user.name : typeof user.login === 'string' ? user.login : undefined,
          ...(typeof user.email === 'string' ? { email: user.email } : {}),
          groups,
          claims: user,
        };
      },
      // GitHub's REST API, not RFC 7009: deleting the token ends it (and a GitHub App's refresh token with it).
      revoke: async (provider, _as, tokens) => {
        const response = await provider.fetch(`${api}/applications/${encodeURIComponent(provider.clientId)}/token`, {
          method: 'DELETE',
          headers: { authorization: provider.basicAuthorization(), accept: 'application/vnd.github+json', 'content-type': 'application/json' },
          body: JSON.stringify({ access_token: tokens.accessToken }),
        });
        if (!response.ok && response.status !== 404) throw new Error(`GitHub answered ${response.status} to the token's deletion`);
      },
    },
    options,
  );
}

/**
 * A mapping from a table of groups: each group the user is in adds its roles and scopes,
 * `everyone` applies to all. With `membersOnly`, a user in none of the groups is refused.
 */
export function mapGroups(table: { readonly groups?: Readonly<Record<string, UpstreamAccess>>; readonly everyone?: UpstreamAccess; readonly membersOnly?: boolean }): UpstreamMapping {
  return (identity) => {
    const matched = Object.entries(table.groups ?? {})
      .filter(([group]) => identity.groups.includes(group))
      .map(([, access]) => access);
    if (table.membersOnly && matched.length === 0) return false;
    const all = [...(table.everyone !== undefined ? [table.everyone] : []), ...matched];
    return {
      roles: [...new Set(all.flatMap((access) => access.roles ?? []))],
      scopes: [...new Set(all.flatMap((access) => access.scopes ?? []))],
    };
  };
}

async function discover(provider: UpstreamProvider, issuer: string): Promise<oauth.AuthorizationServer> {
  const issuerUrl = new URL(issuer);
  const response = await oauth.discoveryRequest(issuerUrl, { ...provider.requestOptions(), algorithm: 'oidc' });
  return oauth.processDiscoveryResponse(issuerUrl, response);
}

async function oidcIdentity(provider: UpstreamProvider, as: oauth.AuthorizationServer, tokens: oauth.TokenEndpointResponse, groupsClaims: readonly string[]): Promise<UpstreamIdentity> {
  const idToken = oauth.getValidatedIdTokenClaims(tokens);
  if (idToken === undefined) throw new Error('the provider sent no ID token');
  let claims: Record<string, unknown> = { ...idToken };
  if (as.userinfo_endpoint !== undefined) {
    const response = await oauth.userInfoRequest(as, provider.client, tokens.access_token, provider.requestOptions());
    // The userinfo's sub must be the ID token's (OIDC Core §5.3.2); the ID token's claims win.
    claims = { ...(await oauth.processUserInfoResponse(as, provider.client, idToken.sub, response)), ...claims };
  }
  const groups = groupsClaims.flatMap((name) => {
    const value = claims[name];
    return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : typeof value === 'string' ? [value] : [];
  });
  return {
    subject: idToken.sub,
    ...(typeof claims.email === 'string' ? { email: claims.email } : {}),
    ...(typeof claims.email_verified === 'boolean' ? { emailVerified: claims.email_verified } : {}),
    ...(typeof claims.name === 'string' ? { name: claims.name } : typeof claims.preferred_username === 'string' ? { name: claims.preferred_username } : {}),
    groups: [...new Set(groups)],
    claims,
  };
}

function isLoopback(hostname: string): boolean {
  return hostname === '127.0.0.1' || hostname === 'localhost' || hostname === '[::1]';
}
