import { createHash, randomBytes } from 'node:crypto';
import { consentForm, FormBrowser, startSignInServer } from './signInServer';
import type { RunningSignIn } from './signInServer';

let running: RunningSignIn;
beforeAll(async () => {
  running = await startSignInServer();
});
afterAll(() => running.close());

const pkce = () => {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
};

async function mcpCall(token: string, tool: string) {
  const post = (body: unknown, session?: string) =>
    fetch(running.resource, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', ...(session ? { 'mcp-session-id': session } : {}) },
      body: JSON.stringify(body),
    });
  const init = await post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
  if (init.status !== 200) return { status: init.status, text: await init.text(), challenge: init.headers.get('www-authenticate') };
  const session = init.headers.get('mcp-session-id') ?? undefined;
  await init.text();
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session);
  const call = await post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: tool, arguments: {} } }, session);
  return { status: call.status, text: await call.text(), challenge: call.headers.get('www-authenticate') };
}

test('a registered client signs alice in and calls a tool as her; without the refresh_token grant type it gets no refresh token', async () => {
  const meta = (await (await fetch(`${running.origin}/.well-known/oauth-authorization-server`)).json()) as Record<string, string>;
  expect(meta.code_challenge_methods_supported).toEqual(['S256']);
  const registered = (await (
    await fetch(meta.registration_endpoint, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:9/callback'], token_endpoint_auth_method: 'none', client_name: 'Test client' }) })
  ).json()) as Record<string, string>;
  const { verifier, challenge } = pkce();
  const authorizeUrl = `${meta.authorization_endpoint}?${new URLSearchParams({ response_type: 'code', client_id: registered.client_id, redirect_uri: 'http://127.0.0.1:9/callback', code_challenge: challenge, code_challenge_method: 'S256', state: 'xyz', resource: running.resource })}`;
  const browser = new FormBrowser();
  const page = await browser.signIn(authorizeUrl, 'alice', 'alice');
  expect(page.html).toContain('notes:read');
  const form = consentForm(page.html);
  const answered = await browser.request(form.action, { form: { request: form.request, csrf: form.csrf, decision: 'approve' } });
  expect(answered.status).toBe(303);
  const back = new URL(answered.location!);
  expect(back.searchParams.get('state')).toBe('xyz');
  expect(back.searchParams.get('iss')).toBe(running.origin);
  const tokens = (await (
    await fetch(meta.token_endpoint, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'authorization_code', code: back.searchParams.get('code')!, redirect_uri: 'http://127.0.0.1:9/callback', code_verifier: verifier, client_id: registered.client_id, resource: running.resource }) })
  ).json()) as Record<string, string>;
  expect(tokens.scope).toBe('notes:read');
  // It registered without the refresh_token grant type (RFC 7591's default is authorization_code alone).
  expect(tokens.refresh_token).toBeUndefined();
  const refresh = await fetch(meta.token_endpoint, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'x.y', client_id: registered.client_id }) });
  expect(await refresh.json()).toMatchObject({ error: 'unauthorized_client' });
  const result = await mcpCall(tokens.access_token, 'read_notes');
  expect(result.text).toContain('notes of alice (notes:read)');
  const denied = await mcpCall(tokens.access_token, 'write_note');
  expect(denied.status).toBe(403);
  expect(denied.challenge).toContain('scope="notes:read notes:write"');
});

test('the 401 without a token names the default scopes', async () => {
  const response = await fetch(running.resource, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
  expect(response.status).toBe(401);
  expect(response.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${running.origin}/.well-known/oauth-protected-resource/mcp", scope="notes:read"`);
});
