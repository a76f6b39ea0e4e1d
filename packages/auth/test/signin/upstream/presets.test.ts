/**
 * The provider presets are OpenID Connect (or OAuth 2) with each provider's quirks: what
 * they ask for and where they look, read without reaching the providers (their discovery
 * request is recorded, not answered). Sign-in itself is generic: oidc.browser.test.ts runs
 * it against a real OIDC provider, github.test.ts the OAuth 2 variant.
 */
import { entraUpstream, githubUpstream, googleUpstream, mapGroups, oidcUpstream } from '@typemcp/auth';
import type { UpstreamIdentity } from '@typemcp/auth';

const credentials = { clientId: 'id', clientSecret: 'secret' };

/** The URL a provider's discovery asks for. */
async function discoveryUrl(make: (fetch: typeof globalThis.fetch) => { metadata(): Promise<unknown> }): Promise<string> {
  let asked = '';
  const recording = (async (input: string | URL | Request) => {
    asked = String(input instanceof Request ? input.url : input);
    return new Response('{}', { status: 404 });
  }) as typeof globalThis.fetch;
  await make(recording).metadata().catch(() => undefined);
  return asked;
}

const identity = (groups: string[], claims: Record<string, unknown> = {}): UpstreamIdentity => ({ subject: 's', groups, claims });

test('Google: access_type=offline and prompt=consent for a refresh token; a Workspace domain is checked in the hd claim', async () => {
  const google = googleUpstream({ ...credentials, hostedDomain: 'example.com' });
  expect(google.oidc).toBe(true);
  expect(google.scopes).toEqual(['openid', 'email', 'profile']);
  expect(google.authorizationParams).toEqual({ access_type: 'offline', prompt: 'consent', hd: 'example.com' });
  expect(await discoveryUrl((fetch) => googleUpstream({ ...credentials, fetch }))).toBe('https://accounts.google.com/.well-known/openid-configuration');
  expect(google.refusal(identity([], { hd: 'example.com' }))).toBeUndefined();
  expect(google.refusal(identity([], {}))).toBe('only accounts of example.com may sign in');
});

test("Entra ID: the tenant's v2.0 issuer, offline_access, groups and app roles; multi-tenant endpoints refused", async () => {
  const entra = entraUpstream({ ...credentials, tenant: 'contoso.onmicrosoft.com' });
  expect(entra.scopes).toContain('offline_access');
  expect(entra.authorizationParams).toEqual({});
  expect(await discoveryUrl((fetch) => entraUpstream({ ...credentials, tenant: '8eaef023-2b34-4da1-9baa-8bc8c9d6a490', fetch }))).toBe(
    'https://login.microsoftonline.com/8eaef023-2b34-4da1-9baa-8bc8c9d6a490/v2.0/.well-known/openid-configuration',
  );
  for (const tenant of ['common', 'organizations', 'consumers', '']) expect(() => entraUpstream({ ...credentials, tenant })).toThrow('tenant must be your directory');
});

test('any OIDC provider: discovery at its issuer; prompt=consent only when offline_access is asked for', async () => {
  expect(await discoveryUrl((fetch) => oidcUpstream({ ...credentials, issuer: 'https://id.example.com/realms/x', fetch }))).toBe('https://id.example.com/realms/x/.well-known/openid-configuration');
  expect(oidcUpstream({ ...credentials, issuer: 'https://id.example.com' }).authorizationParams).toEqual({ prompt: 'consent' });
  expect(oidcUpstream({ ...credentials, issuer: 'https://id.example.com', scopes: ['openid'] }).authorizationParams).toEqual({});
  expect(() => oidcUpstream({ ...credentials, issuer: 'http://id.example.com' })).toThrow('must be https');
  expect(() => oidcUpstream({ clientId: 'id', clientSecret: '', issuer: 'https://id.example.com' })).toThrow('clientSecret is required');
});

test('GitHub: OAuth 2 at its documented endpoints (Enterprise Server under its own host), read:org only for teams', async () => {
  const github = githubUpstream(credentials);
  expect(github.oidc).toBe(false);
  expect(github.scopes).toEqual(['read:user', 'user:email']);
  expect(githubUpstream({ ...credentials, teams: true }).scopes).toContain('read:org');
  expect(await github.metadata()).toMatchObject({ authorization_endpoint: 'https://github.com/login/oauth/authorize', token_endpoint: 'https://github.com/login/oauth/access_token' });
  expect(await githubUpstream({ ...credentials, baseUrl: 'https://ghe.example.com' }).metadata()).toMatchObject({ token_endpoint: 'https://ghe.example.com/login/oauth/access_token' });
});

test('mapGroups: roles and scopes of every group the user is in, with everyone\'s; membersOnly refuses the others', async () => {
  const map = mapGroups({ everyone: { scopes: ['notes:read'] }, groups: { editors: { roles: ['editor'], scopes: ['notes:write'] }, admins: { roles: ['admin', 'editor'] } } });
  expect(await map(identity(['editors', 'admins', 'other']))).toEqual({ roles: ['editor', 'admin'], scopes: ['notes:read', 'notes:write'] });
  expect(await map(identity([]))).toEqual({ roles: [], scopes: ['notes:read'] });
  expect(await mapGroups({ groups: { staff: {} }, membersOnly: true })(identity(['guests']))).toBe(false);
});
