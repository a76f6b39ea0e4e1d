/**
 * Sign-in through a real upstream OpenID Connect provider: oidc-provider 9 (a certified
 * implementation) runs on Node 22 in a child process on 127.0.0.1 (fixtures/oidcProvider.mjs:
 * one user, no DCR, access tokens of 3 s, offline_access with refresh tokens, revocation and
 * introspection). The notes server runs signIn({ upstream: oidcUpstream(…) }) in this process.
 * The official SDK v2 client (examples/09-signin's command-line fixture) signs in through it,
 * the provider's login and consent and TypeMCP's consent driven in headless Chromium; a tool
 * calls the provider's userinfo endpoint with the user's upstream token.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { Browser, BrowserContext } from 'playwright-core';
import { mapGroups, oidcUpstream } from '@typemcp/auth';
import { launchChromium } from '../../../../../test-support/appsHost';
import { answer, Cli, freePort, HANDSHAKE, readConsent, stopAll, textOf, track, WAIT_MS } from '../../../../../examples/09-signin/test/signInKit';
import type { CliEvent } from '../../../../../examples/09-signin/test/signInKit';
import { ProviderTools, startProxy, upstreamSecrets, VisibleStore } from './proxyKit';
import type { RunningProxy } from './proxyKit';

jest.setTimeout(90_000);

const NODE22 = path.join(__dirname, '..', '..', '..', '..', '..', 'test-support', 'runtimes', 'node_modules', '.bin', 'node');
const PROVIDER = path.join(__dirname, 'fixtures', 'oidcProvider.mjs');
const ACCESS_TTL_SEC = 3;
const CLIENT = { id: 'typemcp-notes', secret: 'the provider client secret of the notes server' };

let issuer: string;
let proxy: RunningProxy;
let store: VisibleStore;
let browser: Browser;
const providerEvents: Array<{ event: string; grantType?: string }> = [];

beforeAll(async () => {
  const port = await freePort();
  issuer = `http://127.0.0.1:${port}`;
  store = new VisibleStore();
  const upstream = oidcUpstream({
    issuer,
    clientId: CLIENT.id,
    clientSecret: CLIENT.secret,
    scopes: ['openid', 'profile', 'email', 'groups', 'offline_access'],
    store,
    map: mapGroups({ everyone: { scopes: ['notes:read'] }, groups: { editors: { roles: ['editor'], scopes: ['notes:write'] } } }),
  });
  proxy = await startProxy(upstream);
  ProviderTools.userUrl = `${issuer}/me`;
  const child = spawn(NODE22, [PROVIDER], {
    env: { ...process.env, PORT: String(port), CLIENT_ID: CLIENT.id, CLIENT_SECRET: CLIENT.secret, REDIRECT_URI: `${proxy.origin}/oauth/upstream/callback`, ACCESS_TTL_SEC: String(ACCESS_TTL_SEC) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const handle = track(child);
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`oidc-provider did not start within ${WAIT_MS} ms: ${handle.stderr()}`)), WAIT_MS);
    child.once('exit', (code) => reject(new Error(`oidc-provider exited (${code}): ${handle.stderr()}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      // Its own warnings (development keys, development interactions) are plain text.
      if (!line.startsWith('{')) return;
      const event = JSON.parse(line) as { event: string; grantType?: string };
      providerEvents.push(event);
      if (event.event === 'ready') {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  [, browser] = await Promise.all([ready, launchChromium()]);
});

afterAll(async () => {
  await browser?.close();
  await stopAll();
  await proxy?.close();
});

const refreshesAtProvider = () => providerEvents.filter((event) => event.event === 'grant' && event.grantType === 'refresh_token').length;

async function userinfo(accessToken: string): Promise<number> {
  const response = await fetch(`${issuer}/me`, { headers: { authorization: `Bearer ${accessToken}` } });
  await response.text();
  return response.status;
}

test('the SDK client signs in at the provider through TypeMCP; tools use the upstream token, refreshed; revoking the MCP grant revokes it at the provider; the client never sees it', async () => {
  process.env.REPORT_BODIES = '1';
  const cli = await Cli.start({ server: { url: proxy.resource }, protocol: HANDSHAKE, name: 'Notes CLI (upstream OIDC)' });
  delete process.env.REPORT_BODIES;
  const context: BrowserContext = await browser.newContext();
  const page = await context.newPage();
  // Every response the browser got from TypeMCP, to look for upstream tokens in them too.
  const pageBodies: Promise<string>[] = [];
  page.on('response', (response) => {
    if (response.url().startsWith(proxy.origin)) pageBodies.push(response.text().catch(() => ''));
  });
  const authorization = cli.nextAuthorization();
  const connecting = cli.send<{ protocolVersion: string }>({ command: 'connect' });
  await page.goto(await authorization);
  // The provider's own login and consent pages.
  await page.waitForURL((url) => url.href.startsWith(issuer), { timeout: WAIT_MS });
  await page.locator('input[name="login"]').fill('alice');
  await page.locator('input[name="password"]').fill('anything');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();
  // Back at TypeMCP: its consent page, for the user the provider named.
  const consent = await readConsent(page);
  expect(consent.scopes).toEqual(['notes:read']);
  expect(await page.getByText('Signed in as').textContent()).toContain('Alice Liddell');
  await answer(page, cli, 'Approve');
  expect(await connecting).toMatchObject({ ok: true, result: { protocolVersion: HANDSHAKE } });

  // A tool calls the provider's userinfo as the user.
  expect(textOf(await cli.call('provider_whoami'))).toBe('Alice Liddell');
  // The upstream access token expires (3 s); the next call refreshes it at the provider.
  const refreshes = refreshesAtProvider();
  await new Promise((resolve) => setTimeout(resolve, ACCESS_TTL_SEC * 1000 + 500));
  expect(textOf(await cli.call('provider_whoami'))).toBe('Alice Liddell');
  expect(refreshesAtProvider()).toBe(refreshes + 1);
  const secrets = await upstreamSecrets(store);
  expect(secrets.accessTokens.length).toBeGreaterThanOrEqual(2);
  expect(secrets.refreshTokens.length).toBeGreaterThanOrEqual(1);
  const current = secrets.accessTokens.at(-1)!;
  expect(await userinfo(current)).toBe(200);

  // Nothing the client stored or received, and nothing TypeMCP showed the browser, holds an upstream token.
  const state = await cli.state();
  await new Promise((resolve) => setTimeout(resolve, 200));
  const bodies = cli.events.filter((event: CliEvent) => event.event === 'body').map((event) => String(event.body));
  expect(bodies.length).toBeGreaterThan(3);
  const seen = [JSON.stringify(state), ...bodies, ...(await Promise.all(pageBodies)), page.url()].join('\n');
  for (const secret of [...secrets.accessTokens, ...secrets.refreshTokens]) expect(seen).not.toContain(secret);
  // And the MCP token never reached the provider: it is TypeMCP's, checked nowhere else.
  expect(await userinfo(state.tokens.access_token)).toBe(401);

  // Revoking the MCP grant revokes the upstream tokens at the provider.
  const revoked = await fetch(`${proxy.origin}/oauth/revoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token: state.tokens.refresh_token, client_id: state.clientInformation.client_id }),
  });
  expect(revoked.status).toBe(200);
  expect(await userinfo(current)).toBe(401);
  const introspected = await fetch(`${issuer}/token/introspection`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${CLIENT.id}:${encodeURIComponent(CLIENT.secret).replace(/%20/g, '+')}`).toString('base64')}` },
    body: new URLSearchParams({ token: secrets.refreshTokens.at(-1)! }),
  });
  expect(await introspected.json()).toMatchObject({ active: false });
  await context.close();
});
