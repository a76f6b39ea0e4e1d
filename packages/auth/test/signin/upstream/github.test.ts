/**
 * Sign-in through an upstream provider that speaks OAuth 2 without OpenID Connect: GitHub, as
 * `githubUpstream` configures it, against a stand-in for GitHub written for this test
 * (githubStandIn.ts: GitHub itself cannot be reached here, and this is the only stand-in the
 * upstream tests use). The browser is signInServer's FormBrowser; tools are called with the
 * SDK client. Also: roles and scopes from the mapping, tokens sealed at rest, every path that
 * revokes a grant revoking the upstream tokens, and an attacker's tries at the callback.
 */
import { githubUpstream, mapGroups } from '@typemcp/auth';
import { Vault } from '../../../src/signin/upstream/vault';
import { CALLBACK, pkce } from '../securityKit';
import { FormBrowser } from '../signInServer';
import { startGitHubStandIn } from './githubStandIn';
import type { GitHubStandIn } from './githubStandIn';
import { authorizeUrl, callTool, exchange, ProviderTools, registerClient, revokeRequest, SECRET, signedIn, startProxy, tokenRequest, VisibleStore, walk } from './proxyKit';
import type { RunningProxy } from './proxyKit';

let github: GitHubStandIn;
let proxy: RunningProxy;
let store: VisibleStore;

const alice = { id: 101, login: 'alice', name: 'Alice Liddell', orgs: ['wonderland'], teams: ['wonderland/editors'] };
const bob = { id: 102, login: 'bob', name: 'Bob', orgs: ['wonderland'] };

beforeAll(async () => {
  github = await startGitHubStandIn();
  store = new VisibleStore();
  const upstream = githubUpstream({
    clientId: github.clientId,
    clientSecret: github.clientSecret,
    baseUrl: github.origin,
    apiUrl: github.origin,
    teams: true,
    store,
    map: mapGroups({ everyone: { scopes: ['notes:read'] }, groups: { 'wonderland/editors': { roles: ['editor'], scopes: ['notes:write'] } }, membersOnly: false }),
  });
  ProviderTools.userUrl = `${github.origin}/user`;
  proxy = await startProxy(upstream);
});

afterAll(async () => {
  await proxy?.close();
  await github?.close();
});

beforeEach(() => {
  github.user = alice;
  github.accessTtlSec = 3600;
});

const lastAccessToken = () => [...github.tokens.keys()].at(-1)!;

describe('the flow, GitHub-style (OAuth 2, the user from its API)', () => {
  test('the user signs in at GitHub; a tool calls GitHub as the user; the client never sees a GitHub token', async () => {
    const { tokens, walk: walked } = await signedIn(proxy, { scope: 'notes:read notes:write' });
    // TypeMCP's confidential client at GitHub, with PKCE and the callback on the issuer.
    expect(walked.toProvider.origin + walked.toProvider.pathname).toBe(`${github.origin}/login/oauth/authorize`);
    expect(walked.toProvider.searchParams.get('client_id')).toBe(github.clientId);
    expect(walked.toProvider.searchParams.get('redirect_uri')).toBe(`${proxy.origin}/oauth/upstream/callback`);
    expect(walked.toProvider.searchParams.get('code_challenge_method')).toBe('S256');
    expect(walked.toProvider.searchParams.get('scope')).toBe('read:user user:email read:org');
    expect(walked.toProvider.searchParams.has('nonce')).toBe(false);
    expect(walked.consent).toContain('Signed in as <strong>Alice Liddell</strong>');
    expect(walked.back.searchParams.get('state')).toBe('client-state');
    expect(walked.back.searchParams.get('iss')).toBe(proxy.origin);
    expect(github.requests).toContain('POST /login/oauth/access_token authorization_code');
    // The client holds TypeMCP's tokens only.
    const upstreamTokens = [...github.tokens.entries()].flatMap(([access, issued]) => [access, issued.refreshToken]);
    for (const secret of upstreamTokens) expect(JSON.stringify(tokens)).not.toContain(secret);
    expect(await callTool(proxy, tokens.access_token, 'provider_whoami')).toEqual({ ok: true, text: 'Alice Liddell' });
    // The subject is GitHub's numeric id; the mapping gave the editors' team its role and scope.
    expect(await callTool(proxy, tokens.access_token, 'edit_notes')).toEqual({ ok: true, text: 'edited by 101 (editor)' });
  });

  test('an expired GitHub access token is refreshed for the tool', async () => {
    github.accessTtlSec = 1;
    const { tokens } = await signedIn(proxy);
    const before = github.requests.filter((r) => r.endsWith('refresh_token')).length;
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(await callTool(proxy, tokens.access_token, 'provider_whoami')).toEqual({ ok: true, text: 'Alice Liddell' });
    expect(github.requests.filter((r) => r.endsWith('refresh_token')).length).toBe(before + 1);
  });
});

describe('the mapping: roles and scopes', () => {
  test('a user outside the editors team gets no role, and the consent page offers only the scopes they may grant', async () => {
    github.user = bob;
    const { tokens, walk: walked } = await signedIn(proxy, { scope: 'notes:read notes:write' });
    expect(walked.consent).toContain('<code>notes:read</code>');
    expect(walked.consent).not.toContain('notes:write');
    expect(tokens.scope).toBe('notes:read');
    const edit = await callTool(proxy, tokens.access_token, 'edit_notes');
    expect(edit.ok).toBe(false);
  });

  test('a mapping that refuses the user sends access_denied to the client, and the fresh GitHub token is revoked', async () => {
    const gate = await startGitHubStandIn();
    const refusing = await startProxy(githubUpstream({ clientId: gate.clientId, clientSecret: gate.clientSecret, baseUrl: gate.origin, apiUrl: gate.origin, map: () => false }));
    try {
      const walked = await walk(refusing, new FormBrowser(), await registerClient(refusing));
      expect(Object.fromEntries(walked.back.searchParams)).toMatchObject({ error: 'access_denied', state: 'client-state', iss: refusing.origin });
      expect([...gate.tokens.values()].every((issued) => issued.revoked)).toBe(true);
    } finally {
      await refusing.close();
      await gate.close();
    }
  });

  test('the user declining at GitHub is access_denied at the client, with its state and TypeMCP as iss', async () => {
    github.user = 'deny';
    const walked = await walk(proxy, new FormBrowser(), await registerClient(proxy));
    expect(Object.fromEntries(walked.back.searchParams)).toMatchObject({ error: 'access_denied', state: 'client-state', iss: proxy.origin });
  });
});

describe('upstream tokens at rest', () => {
  test('are sealed (JWE under a key from the secret), never stored in the clear, and open under that secret only', async () => {
    await signedIn(proxy);
    const accessToken = lastAccessToken();
    const refreshToken = github.tokens.get(accessToken)!.refreshToken;
    const [id, entry] = [...store.seen.entries()].at(-1)!;
    const stored = JSON.stringify(entry);
    expect(stored).not.toContain(accessToken);
    expect(stored).not.toContain(refreshToken);
    expect(entry.sealed.split('.')).toHaveLength(5);
    expect(JSON.parse(Buffer.from(entry.sealed.split('.')[0], 'base64url').toString())).toEqual({ alg: 'dir', enc: 'A256GCM' });
    const opened = await new Vault(SECRET, 'upstream tokens').open<{ tokens: { accessToken: string; refreshToken: string } }>(id, entry.sealed);
    expect(opened.tokens).toMatchObject({ accessToken, refreshToken });
    await expect(new Vault(`${SECRET} but another`, 'upstream tokens').open(id, entry.sealed)).rejects.toThrow();
    // Sealed for one session, it does not open as another's (an entry moved between ids).
    await expect(new Vault(SECRET, 'upstream tokens').open('another-id', entry.sealed)).rejects.toThrow('belongs to something else');
  });

  test("the login cookie holds the PKCE verifier sealed, not in the clear", async () => {
    const browser = new FormBrowser();
    const start = await browser.request(authorizeUrl(proxy, await registerClient(proxy), pkce().challenge));
    const cookie = start.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^typemcp_upstream_login_[A-Za-z0-9_-]{16}=[^;]+; Path=\/oauth\/upstream\/callback; HttpOnly; SameSite=Lax; Max-Age=600$/);
    const value = cookie.split(';')[0].split('=')[1];
    expect(value.split('.')).toHaveLength(5);
    expect(value).not.toContain(new URL(start.location!).searchParams.get('state')!);
  });
});

describe('every path that revokes the MCP grant revokes the upstream tokens at GitHub', () => {
  test('revocation by the client (RFC 7009)', async () => {
    const { clientId, tokens } = await signedIn(proxy);
    const upstream = lastAccessToken();
    expect(await revokeRequest(proxy, { token: tokens.refresh_token, client_id: clientId })).toBe(200);
    expect(github.tokens.get(upstream)!.revoked).toBe(true);
    expect(github.requests).toContain(`DELETE /applications/${github.clientId}/token`);
    expect((await callTool(proxy, tokens.access_token, 'provider_whoami')).ok).toBe(false);
  });

  test('reuse of a rotated refresh token', async () => {
    const { clientId, tokens } = await signedIn(proxy);
    const upstream = lastAccessToken();
    expect((await tokenRequest(proxy, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: clientId })).status).toBe(200);
    expect(github.tokens.get(upstream)!.revoked).toBe(false);
    const reused = await tokenRequest(proxy, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: clientId });
    expect(reused.body.error).toBe('invalid_grant');
    expect(github.tokens.get(upstream)!.revoked).toBe(true);
  });

  test('replay of the authorization code', async () => {
    const clientId = await registerClient(proxy);
    const walked = await walk(proxy, new FormBrowser(), clientId);
    const code = walked.back.searchParams.get('code')!;
    expect((await exchange(proxy, code, walked.request)).status).toBe(200);
    const upstream = lastAccessToken();
    expect((await exchange(proxy, code, walked.request)).body.error).toBe('invalid_grant');
    expect(github.tokens.get(upstream)!.revoked).toBe(true);
  });

  test('a code exchanged with the wrong PKCE verifier', async () => {
    const clientId = await registerClient(proxy);
    const walked = await walk(proxy, new FormBrowser(), clientId);
    const upstream = lastAccessToken();
    const wrong = await exchange(proxy, walked.back.searchParams.get('code')!, { ...walked.request, verifier: pkce().verifier });
    expect(wrong.body.error).toBe('invalid_grant');
    expect(github.tokens.get(upstream)!.revoked).toBe(true);
  });

  test('the provider ending the sign-in (its refresh refused) ends the MCP grant', async () => {
    github.accessTtlSec = 1;
    const { clientId, tokens } = await signedIn(proxy);
    const upstream = github.tokens.get(lastAccessToken())!;
    // Revoked at GitHub directly (the user removed the app): the refresh token stops working.
    upstream.revoked = true;
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await callTool(proxy, tokens.access_token, 'provider_whoami')).ok).toBe(false);
    const refreshed = await tokenRequest(proxy, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: clientId });
    expect(refreshed.body.error).toBe('invalid_grant');
  });
});

describe('an attacker at /oauth/upstream/callback', () => {
  /** The provider's answer for a sign-in the attacker started in their own browser. */
  async function attackersAnswer(): Promise<URL> {
    github.user = { id: 666, login: 'mallory', name: 'Mallory' };
    const browser = new FormBrowser();
    const start = await browser.request(authorizeUrl(proxy, await registerClient(proxy), pkce().challenge));
    const answer = await browser.request(start.location!);
    github.user = alice;
    return new URL(answer.location!);
  }

  test('login CSRF: the attacker\'s code and state, sent to a victim\'s browser, are refused without a token request', async () => {
    const answer = await attackersAnswer();
    const exchanges = github.requests.filter((r) => r.includes('access_token')).length;
    // The victim has no sign-in under way.
    const bare = await new FormBrowser().request(answer.href);
    expect(bare.status).toBe(400);
    expect(bare.location).toBeNull();
    // The victim has one under way, with its own state: the attacker's state names no cookie of theirs.
    const victim = new FormBrowser();
    await victim.request(authorizeUrl(proxy, await registerClient(proxy), pkce().challenge));
    const mixed = await victim.request(answer.href);
    expect(mixed.status).toBe(400);
    expect(github.requests.filter((r) => r.includes('access_token')).length).toBe(exchanges);
  });

  test('the state must be the cookie\'s: the victim\'s code under another state is refused', async () => {
    const victim = new FormBrowser();
    const start = await victim.request(authorizeUrl(proxy, await registerClient(proxy), pkce().challenge));
    const answer = new URL((await victim.request(start.location!)).location!);
    answer.searchParams.set('state', 'attacker-chosen');
    expect((await victim.request(answer.href)).status).toBe(400);
  });

  test('a tampered login cookie is refused', async () => {
    const victim = new FormBrowser();
    const start = await victim.request(authorizeUrl(proxy, await registerClient(proxy), pkce().challenge));
    const answer = new URL((await victim.request(start.location!)).location!);
    const [name, value] = start.headers.get('set-cookie')!.split(';')[0].split('=');
    const parts = value.split('.');
    parts[3] = `${parts[3].slice(0, -2)}AA`;
    const forged = await fetch(answer.href, { headers: { cookie: `${name}=${parts.join('.')}` }, redirect: 'manual' });
    expect(forged.status).toBe(400);
  });

  test('mix-up: an answer naming another issuer (the MCP leg\'s) is refused before any token request, and the client hears server_error', async () => {
    const victim = new FormBrowser();
    const start = await victim.request(authorizeUrl(proxy, await registerClient(proxy), pkce().challenge));
    const answer = new URL((await victim.request(start.location!)).location!);
    answer.searchParams.set('iss', proxy.origin);
    const exchanges = github.requests.filter((r) => r.includes('access_token')).length;
    const reply = await victim.request(answer.href);
    expect(reply.status).toBe(303);
    const back = new URL(reply.location!);
    expect(back.origin + back.pathname).toBe(CALLBACK);
    expect(Object.fromEntries(back.searchParams)).toMatchObject({ error: 'server_error', state: 'client-state', iss: proxy.origin });
    expect(github.requests.filter((r) => r.includes('access_token')).length).toBe(exchanges);
  });

  test('open redirect: the callback sends the browser only to the MCP authorization sealed in the cookie', async () => {
    const victim = new FormBrowser();
    const start = await victim.request(authorizeUrl(proxy, await registerClient(proxy), pkce().challenge));
    const answer = new URL((await victim.request(start.location!)).location!);
    // Parameters the provider does not send are ignored: where to go comes from the sealed cookie.
    answer.searchParams.set('redirect_uri', 'https://evil.example/steal');
    answer.searchParams.set('return_to', 'https://evil.example/steal');
    const reply = await victim.request(answer.href);
    expect(reply.status).toBe(303);
    expect(reply.location!.startsWith(`${proxy.origin}/oauth/authorize?`)).toBe(true);
  });

  test('the session of one MCP authorization does not serve another (another client, or another state)', async () => {
    const browser = new FormBrowser();
    const clientId = await registerClient(proxy);
    const first = await walk(proxy, browser, clientId);
    expect(first.back.searchParams.has('code')).toBe(true);
    // The same browser, a new authorization: back to GitHub, not a code from the earlier sign-in.
    const again = await browser.request(authorizeUrl(proxy, clientId, pkce().challenge, { state: 'other' }));
    expect(again.status).toBe(303);
    expect(again.location!.startsWith(`${github.origin}/login/oauth/authorize`)).toBe(true);
  });

  test('the consent page without an upstream sign-in of this browser is refused', async () => {
    const response = await fetch(`${proxy.origin}/oauth/consent`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: proxy.origin }, body: 'request=x&csrf=y&decision=approve', redirect: 'manual' });
    expect(response.status).toBe(400);
  });
});
