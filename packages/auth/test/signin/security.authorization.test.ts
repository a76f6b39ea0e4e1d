import type { FormBrowser } from './signInServer';
import { CALLBACK, pkce, SignInKit, WEB_CALLBACK } from './securityKit';

// The authorization endpoint and the consent page, attacked from a browser. Alice has approved
// notes:read for `clientId` once, so any request that slips past a check gets a code at once:
// each refusal below would turn into a redirect carrying a code if its guard were gone.
let kit: SignInKit;
let clientId: string;
let alice: FormBrowser;
beforeAll(async () => {
  kit = await SignInKit.start();
  clientId = await kit.publicClient();
  alice = await kit.browser('alice', clientId);
  await kit.authorize(alice, clientId);
});
afterAll(() => kit.close());

/** The redirect an authorization request answers, in alice's browser. */
async function redirectOf(params: Record<string, string | undefined>, challenge = pkce().challenge) {
  const answer = await alice.request(kit.authorizeUrl(clientId, challenge, params));
  expect(answer.status).toBe(303);
  return new URL(answer.location!);
}

function expectErrorRedirect(location: URL, error: string, state = 'state-123') {
  expect(location.origin + location.pathname).toBe(new URL(CALLBACK).origin + new URL(CALLBACK).pathname);
  expect(location.searchParams.get('error')).toBe(error);
  expect(location.searchParams.get('state')).toBe(state);
  expect(location.searchParams.get('iss')).toBe(kit.origin);
  expect(location.searchParams.has('code')).toBe(false);
}

/** An error page: never a redirect, so a bad client or redirect URI cannot send the browser anywhere. */
function expectErrorPage(answer: { status: number; location: string | null; headers: Headers }) {
  expect(answer.status).toBe(400);
  expect(answer.location).toBeNull();
  expect(answer.headers.get('content-type')).toMatch(/^text\/html/);
}

test('a signed-in user who approved before gets a code at once (what each refusal below would become)', async () => {
  const location = await redirectOf({});
  expect(location.searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
});

describe('PKCE', () => {
  test('an authorization request without code_challenge goes back with invalid_request, and no code', async () => {
    expectErrorRedirect(await redirectOf({ code_challenge: undefined }), 'invalid_request');
  });

  test('code_challenge_method=plain (or none named) is refused: the challenge would be the verifier itself', async () => {
    const { verifier } = pkce();
    // A 43-character verifier looks like an S256 challenge: only the method check stops it.
    expectErrorRedirect(await redirectOf({ code_challenge_method: 'plain' }, verifier), 'invalid_request');
    expectErrorRedirect(await redirectOf({ code_challenge_method: undefined }, verifier), 'invalid_request');
  });

  test('a token request with a wrong code_verifier gets invalid_grant', async () => {
    const { code, request } = await kit.code(clientId);
    const wrong = await kit.exchange(code, { ...request, verifier: pkce().verifier });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toBe('invalid_grant');
    expect(wrong.body.access_token).toBeUndefined();
  });

  test('the challenge itself as the verifier (a plain downgrade at the token endpoint) gets invalid_grant', async () => {
    const { challenge } = pkce();
    const location = await redirectOf({}, challenge);
    const answer = await kit.exchange(location.searchParams.get('code')!, { clientId, redirectUri: CALLBACK, verifier: challenge });
    expect(answer.body.error).toBe('invalid_grant');
  });
});

describe('redirect URI', () => {
  test.each([
    ['another host', 'https://evil.example/callback'],
    ['the same host, another path', 'https://app.example/other'],
    ['the same URI with a query added', `${WEB_CALLBACK}?next=https://evil.example`],
    ['the same URI over http', 'http://app.example/callback'],
    ['a loopback URI with another path', 'http://127.0.0.1:9/other'],
    ['a loopback URI with another path and port', 'http://127.0.0.1:5555/other'],
    ['another loopback name', 'http://localhost:9/callback'],
    ['the loopback URI with a fragment', `${CALLBACK}#fragment`],
    ['the loopback URI with credentials', 'http://evil@127.0.0.1:9/callback'],
  ])('an unregistered redirect_uri (%s) gets an error page, never a redirect', async (_, redirectUri) => {
    const answer = await alice.request(kit.authorizeUrl(clientId, pkce().challenge, { redirect_uri: redirectUri }));
    expectErrorPage(answer);
    expect(answer.html).not.toContain('code=');
  });

  test('an unknown client gets an error page, whatever redirect_uri it names', async () => {
    const answer = await alice.request(kit.authorizeUrl('no-such-client', pkce().challenge, { redirect_uri: 'https://evil.example/callback' }));
    expectErrorPage(answer);
  });

  test('a loopback redirect URI on another port is accepted (RFC 8252 §7.3)', async () => {
    const location = await redirectOf({ redirect_uri: 'http://127.0.0.1:5555/callback' });
    expect(location.host).toBe('127.0.0.1:5555');
    expect(location.searchParams.get('code')).not.toBeNull();
  });

  test('a token request with another redirect_uri than the authorization named gets invalid_grant', async () => {
    const { code, request } = await kit.code(clientId, { redirect_uri: 'http://127.0.0.1:5555/callback' });
    const answer = await kit.exchange(code, { ...request, redirectUri: CALLBACK });
    expect(answer.body.error).toBe('invalid_grant');
  });
});

describe('resource and scopes', () => {
  test('a resource other than this server gets invalid_target, and no code', async () => {
    expectErrorRedirect(await redirectOf({ resource: 'https://other.example/mcp' }), 'invalid_target');
    expectErrorRedirect(await redirectOf({ resource: `${kit.resource}/` }), 'invalid_target');
  });

  test('an unknown scope gets invalid_scope, and no code', async () => {
    expectErrorRedirect(await redirectOf({ scope: 'notes:read admin:all' }), 'invalid_scope');
  });
});

describe('consent, per scope and remembered', () => {
  test('approved scopes are not asked again; new ones are, and only they are listed as new', async () => {
    const { clientId: id, browser, form } = await kit.consentPage('alice');
    await browser.request(form.action, { form: { request: form.request, csrf: form.csrf, decision: 'approve' } });
    const again = await browser.request(kit.authorizeUrl(id, pkce().challenge, { scope: 'notes:read' }));
    expect(again.status).toBe(303);
    expect(new URL(again.location!).searchParams.get('code')).not.toBeNull();
    const more = await browser.request(kit.authorizeUrl(id, pkce().challenge, { scope: 'notes:read notes:write' }));
    expect(more.status).toBe(200);
    const listed = /<ul id="scopes">([\s\S]*?)<\/ul>/.exec(more.html)![1];
    expect(listed).toContain('notes:write');
    expect(listed).not.toContain('notes:read');
    expect(more.html).toContain('You already allowed it: <code>notes:read</code>');
  });

  test('a consent is the user’s own: bob is asked even after alice approved the client', async () => {
    const { clientId: id, browser, form } = await kit.consentPage('alice');
    await browser.request(form.action, { form: { request: form.request, csrf: form.csrf, decision: 'approve' } });
    const bob = await kit.consentPage('bob', {}, id);
    expect(bob.page.status).toBe(200);
  });

  test('deny goes back with access_denied, the state and the issuer', async () => {
    const { browser, form } = await kit.consentPage('alice', { state: 'deny-state' });
    const answer = await browser.request(form.action, { form: { request: form.request, csrf: form.csrf, decision: 'deny' } });
    expect(answer.status).toBe(303);
    expectErrorRedirect(new URL(answer.location!), 'access_denied', 'deny-state');
  });
});

describe('cross-site consent', () => {
  const approve = (form: { request: string; csrf: string }) => ({ request: form.request, csrf: form.csrf, decision: 'approve' });

  test.each([
    ['Origin of another site', { origin: 'https://evil.example' }],
    ['Origin null (a sandboxed frame, a redirected POST)', { origin: 'null' }],
    ['Sec-Fetch-Site: cross-site', { 'sec-fetch-site': 'cross-site' }],
    ['Sec-Fetch-Site: same-site (a sibling subdomain)', { 'sec-fetch-site': 'same-site' }],
  ])('a POST with the right request id and CSRF token but %s is refused (403), and issues no code', async (_, headers) => {
    const { browser, form } = await kit.consentPage('alice');
    const forged = await browser.request(form.action, { form: approve(form), headers });
    expect(forged.status).toBe(403);
    expect(forged.location).toBeNull();
    // The same form from the page itself still goes through: only where it came from was wrong.
    const genuine = await browser.request(form.action, { form: approve(form) });
    expect(new URL(genuine.location!).searchParams.get('code')).not.toBeNull();
  });

  test('the right request id with a wrong CSRF token is refused', async () => {
    const { browser, form } = await kit.consentPage('alice');
    const forged = await browser.request(form.action, { form: { ...approve(form), csrf: pkce().verifier } });
    expect(forged.status).toBe(403);
    expect(forged.location).toBeNull();
  });

  test('a form without a CSRF token is refused', async () => {
    const { browser, form } = await kit.consentPage('alice');
    const forged = await browser.request(form.action, { form: { request: form.request, decision: 'approve' } });
    expect(forged.status).toBe(403);
    expect(forged.location).toBeNull();
  });

  test('another signed-in user cannot answer a request that was put to alice', async () => {
    const { clientId: id, form } = await kit.consentPage('alice');
    const bob = await kit.browser('bob', id);
    const answer = await bob.request(form.action, { form: approve(form) });
    expect(answer.status).toBe(403);
    expect(answer.location).toBeNull();
  });

  test('a consent answered twice is refused the second time', async () => {
    const { browser, form } = await kit.consentPage('alice');
    const first = await browser.request(form.action, { form: approve(form) });
    expect(first.status).toBe(303);
    const replay = await browser.request(form.action, { form: approve(form) });
    expect(replay.status).toBe(400);
    expect(replay.location).toBeNull();
  });

  test('the consent, login and error pages cannot be framed (clickjacking)', async () => {
    const { page } = await kit.consentPage('alice');
    const login = await fetch(kit.authorizeUrl(clientId, pkce().challenge), { redirect: 'manual' });
    const error = await fetch(kit.authorizeUrl('no-such-client', pkce().challenge), { redirect: 'manual' });
    for (const headers of [page.headers, login.headers, error.headers]) {
      expect(headers.get('x-frame-options')).toBe('DENY');
      expect(headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    }
    expect(await login.text()).toContain('name="password"');
  });
});

describe('injection and odd inputs', () => {
  test('a state with CR LF cannot add a header: it is encoded in the Location and comes back as sent', async () => {
    const state = 'x\r\nSet-Cookie: evil=1\r\nLocation: https://evil.example/';
    const answer = await alice.request(kit.authorizeUrl(clientId, pkce().challenge, { state }));
    expect(answer.status).toBe(303);
    expect(answer.headers.get('set-cookie')).toBeNull();
    expect(answer.location).not.toMatch(/[\r\n]/);
    const location = new URL(answer.location!);
    expect(location.host).toBe('127.0.0.1:9');
    expect(location.searchParams.get('state')).toBe(state);
  });

  test('a client name with markup is shown escaped on the consent page', async () => {
    const name = '<script>alert(1)</script>"><img src=x onerror=alert(2)>';
    const id = await kit.publicClient({ client_name: name });
    const { page } = await kit.consentPage('alice', {}, id);
    expect(page.html).not.toContain('<script>alert');
    expect(page.html).not.toContain('<img');
    expect(page.html).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
  });

  test('a redirect_uri with markup is shown escaped on the error page', async () => {
    const answer = await alice.request(kit.authorizeUrl(clientId, pkce().challenge, { redirect_uri: 'https://evil.example/"><script>alert(1)</script>' }));
    expectErrorPage(answer);
    expect(answer.html).not.toContain('<script>alert');
  });

  test.each([
    ['client_id', 'another-client'],
    ['redirect_uri', 'https://evil.example/callback'],
    ['state', 'second'],
    ['code_challenge', pkce().challenge],
  ])('an authorization request giving %s twice gets an error page, not a redirect', async (name, second) => {
    const url = new URL(kit.authorizeUrl(clientId, pkce().challenge));
    url.searchParams.append(name, second);
    expectErrorPage(await alice.request(url.href));
  });

  test('a token request giving a parameter twice gets invalid_request', async () => {
    const { code, request } = await kit.code(clientId);
    const body = new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: request.verifier, client_id: clientId });
    body.append('code_verifier', pkce().verifier);
    const answer = await fetch(kit.endpoint('token'), { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
    expect(answer.status).toBe(400);
    expect(((await answer.json()) as { error: string }).error).toBe('invalid_request');
  });

  test('a huge client_id gets an error page', async () => {
    expectErrorPage(await alice.request(kit.authorizeUrl('x'.repeat(8000), pkce().challenge)));
  });

  test('a consent POST that is not a form is refused', async () => {
    const { form } = await kit.consentPage('alice');
    const answer = await fetch(form.action, { method: 'POST', headers: { 'content-type': 'text/plain', origin: kit.origin }, body: `request=${form.request}&csrf=${form.csrf}&decision=approve`, redirect: 'manual' });
    expect(answer.status).toBe(400);
    expect(answer.headers.get('location')).toBeNull();
  });
});

describe('client metadata documents switched off', () => {
  let closed: SignInKit;
  beforeAll(async () => {
    closed = await SignInKit.start({ metadataDocuments: false });
  });
  afterAll(() => closed.close());

  test('an https client_id is an unknown client: an error page, no redirect', async () => {
    const meta = (await (await fetch(`${closed.origin}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(meta.client_id_metadata_document_supported).toBe(false);
    const answer = await fetch(closed.authorizeUrl('https://app.example/client.json', pkce().challenge, { redirect_uri: WEB_CALLBACK }), { redirect: 'manual' });
    expect(answer.status).toBe(400);
    expect(answer.headers.get('location')).toBeNull();
    expect(await answer.text()).toContain('does not accept client metadata documents');
  });
});
