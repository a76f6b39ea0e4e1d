/**
 * DPoP (RFC 9449, MCP SEP-1932) as the official SDK v2 client does it against the example:
 * the CLI fixture in `--dpop` mode (its provider has a DPoP key), the example as `npm start`
 * runs it, the user in headless Chromium. The token requests carry proofs, the tokens come
 * back bound (`token_type: DPoP`, `cnf.jkt`), and every MCP request presents the token with
 * the DPoP scheme and a fresh proof; in both eras. A second server requires DPoP, with
 * two-second server nonces and one-second access tokens: the SDK answers the nonce challenges
 * of the token endpoint and of the resource, and refreshes its bound token with a proof of the
 * same key.
 */
import { spawn } from 'node:child_process';
import { generateKeyPair, exportJWK, SignJWT, decodeJwt } from 'jose';
import path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import type { Browser, BrowserContext } from 'playwright-core';
import { launchChromium } from '../../../test-support/appsHost';
import { bannerUrl, Cli, freePort, HANDSHAKE, signIn, STATELESS, stepUpAndAdd, stop, stopAll, textOf, track } from './signInKit';
import type { CliEvent, NotesServer } from './signInKit';

jest.setTimeout(60_000);

const MAIN = path.join(__dirname, '..', 'dist', 'main.js');
const SECRET = 'the DPoP test secret, at least thirty-two characters';

async function startNotesServer(env: Record<string, string> = {}): Promise<NotesServer> {
  const port = await freePort();
  const child = spawn(process.execPath, [MAIN], { env: { ...process.env, PORT: String(port), SIGNIN_SECRET: SECRET, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  const handle = track(child);
  const url = await bannerUrl(handle, 'the notes server');
  return { origin: new URL(url).origin, url, process: handle };
}

/** The SDK's requests to the MCP endpoint from event `from` on: how each presented its token. */
function mcpPresentations(cli: Cli, from: number): string[] {
  return cli.events
    .slice(from)
    .filter((event: CliEvent) => event.event === 'http' && new URL(event.url as string).pathname === '/mcp' && event.auth !== null)
    .map((event) => `${String(event.auth)}${event.proof ? ' + proof' : ''}`);
}

/** An initialize POST to `url` with these credentials: the status and challenge it gets. */
async function initialize(url: string, headers: Record<string, string>): Promise<{ status: number; challenge: string | null }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: HANDSHAKE, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
  });
  await response.body?.cancel();
  return { status: response.status, challenge: response.headers.get('www-authenticate') };
}

/** A proof for `url` signed by a key that is not the client's. */
async function strangerProof(url: string, token: string): Promise<string> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  return new SignJWT({ jti: randomBytes(16).toString('base64url'), htm: 'POST', htu: url, iat: Math.floor(Date.now() / 1000), ath: createHash('sha256').update(token).digest('base64url') })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: await exportJWK(publicKey) })
    .sign(privateKey);
}

let notes: NotesServer;
let strict: NotesServer;
let browser: Browser;

beforeAll(async () => {
  [notes, strict, browser] = await Promise.all([startNotesServer(), startNotesServer({ DPOP: 'required,nonce=2', ACCESS_TOKEN_TTL_SEC: '1' }), launchChromium()]);
});

afterAll(async () => {
  await browser?.close();
  await stopAll();
});

describe.each([
  { protocol: HANDSHAKE, user: 'alice' },
  { protocol: STATELESS, user: 'bob' },
])('the SDK v2 client with a DPoP key at $protocol', ({ protocol, user }) => {
  let cli: Cli;
  let context: BrowserContext;

  beforeAll(async () => {
    cli = await Cli.start({ server: notes, protocol, name: `DPoP CLI (${protocol})`, dpop: true });
    context = await browser.newContext();
  });
  afterAll(async () => {
    await context?.close();
    if (cli) await stop(cli.process);
  });

  it('signs in with a proof at the token endpoint, gets tokens bound to its key, and calls list_notes with the DPoP scheme and a proof', async () => {
    const { requests } = await signIn(cli, context, user, protocol);
    const probe = protocol === HANDSHAKE ? 'initialize' : 'server/discover';
    expect(requests.slice(0, 6)).toEqual([
      `POST /mcp 401 ${probe}`,
      'GET /.well-known/oauth-protected-resource/mcp 200',
      'GET /.well-known/oauth-authorization-server 200',
      'POST /oauth/register 201',
      'POST /oauth/token 200 authorization_code',
      `POST /mcp 200 ${probe}`,
    ]);
    const token = cli.events.find((event) => event.grantType === 'authorization_code');
    expect(token).toMatchObject({ proof: true, auth: null });
    const state = await cli.state();
    expect(state.tokens.token_type).toBe('DPoP');
    expect(decodeJwt(state.tokens.access_token).cnf).toEqual({ jkt: state.dpopThumbprint });

    const from = cli.events.length;
    expect(textOf(await cli.call('list_notes'))).toBe(`${user} has no notes yet.`);
    expect(cli.requests(from)).toEqual(['POST /mcp 200 tools/call']);
    expect(mcpPresentations(cli, from)).toEqual(['DPoP + proof']);
  });

  it('steps up to notes:write through the 403, the new token bound to the same key', async () => {
    const from = cli.events.length;
    const { reply, requests } = await stepUpAndAdd(cli, context, `a note of ${user}`);
    expect(textOf(reply)).toBe(`Added note 1 for ${user}.`);
    expect(requests).toEqual(['POST /mcp 403 tools/call', 'POST /oauth/token 200 authorization_code', 'POST /mcp 200 tools/call']);
    expect(mcpPresentations(cli, from)).toEqual(['DPoP + proof', 'DPoP + proof']);
    const state = await cli.state();
    expect([state.tokens.token_type, state.tokens.scope, decodeJwt(state.tokens.access_token).cnf]).toEqual(['DPoP', 'notes:read notes:write', { jkt: state.dpopThumbprint }]);
  });

  it('has a token worth nothing without its key: refused as a bearer token, with another key, and without a proof', async () => {
    const { tokens } = await cli.state();
    const metadata = `resource_metadata="${notes.origin}/.well-known/oauth-protected-resource/mcp"`;
    const asBearer = await initialize(notes.url, { authorization: `Bearer ${tokens.access_token}` });
    expect(asBearer.status).toBe(401);
    expect(asBearer.challenge).toMatch(new RegExp(`^DPoP ${metadata}, error="invalid_token", error_description="[^"]+", algs="[^"]+", Bearer ${metadata}$`));
    const stranger = await initialize(notes.url, { authorization: `DPoP ${tokens.access_token}`, dpop: await strangerProof(notes.url, tokens.access_token) });
    expect(stranger.status).toBe(401);
    expect(stranger.challenge).toContain('error="invalid_token"');
    const withoutProof = await initialize(notes.url, { authorization: `DPoP ${tokens.access_token}` });
    expect(withoutProof.status).toBe(401);
    expect(withoutProof.challenge).toContain('error="invalid_dpop_proof"');
    // The refresh token is bound too: without a proof of the key it gets nothing.
    const refreshed = await fetch(`${notes.origin}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: (await cli.state()).clientInformation.client_id }),
    });
    expect([refreshed.status, ((await refreshed.json()) as { error: string }).error]).toEqual([400, 'invalid_dpop_proof']);
    // The client itself carries on.
    expect(textOf(await cli.call('list_notes'))).toBe(`1. a note of ${user}`);
  });
});

describe('a server that requires DPoP, with two-second nonces and one-second access tokens', () => {
  it('is signed in to by the SDK, which signs its proofs again with the nonces given and refreshes its bound token, in both eras', async () => {
    const anonymous = await initialize(strict.url, {});
    expect(anonymous.challenge).toMatch(/^DPoP resource_metadata="[^"]+", scope="notes:read", algs="[^"]+"$/);
    const signedIn: Array<{ cli: Cli; user: string; expiresAt: number }> = [];
    try {
      for (const [protocol, user] of [
        [HANDSHAKE, 'alice'],
        [STATELESS, 'bob'],
      ] as const) {
        const cli = await Cli.start({ server: strict, protocol, name: `Strict DPoP CLI (${protocol})`, dpop: true });
        const context = await browser.newContext();
        let requests: string[];
        try {
          ({ requests } = await signIn(cli, context, user, protocol));
        } finally {
          await context.close();
        }
        const probe = protocol === HANDSHAKE ? 'initialize' : 'server/discover';
        // The token endpoint asks for a nonce first (400 use_dpop_nonce with a DPoP-Nonce); the SDK
        // keeps it for the origin, and the resource, which shares the nonces, accepts the proofs.
        expect(requests.slice(0, 7)).toEqual([
          `POST /mcp 401 ${probe}`,
          'GET /.well-known/oauth-protected-resource/mcp 200',
          'GET /.well-known/oauth-authorization-server 200',
          'POST /oauth/register 201',
          'POST /oauth/token 400 authorization_code',
          'POST /oauth/token 200 authorization_code',
          `POST /mcp 200 ${probe}`,
        ]);
        expect(cli.events.filter((event) => event.grantType === 'authorization_code').map((event) => [event.status, event.proof, event.nonce])).toEqual([
          [400, true, true],
          [200, true, false],
        ]);
        const from = cli.events.length;
        expect(textOf(await cli.call('list_notes'))).toBe(`${user} has no notes yet.`);
        expect(cli.requests(from)).toEqual(['POST /mcp 200 tools/call']);
        const state = await cli.state();
        expect(state.tokens.token_type).toBe('DPoP');
        signedIn.push({ cli, user, expiresAt: decodeJwt(state.tokens.access_token).exp! * 1000 });
      }

      // Past the tokens' lifetime and the server's five seconds of leeway: the nonces have changed too.
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, Math.max(...signedIn.map((one) => one.expiresAt)) + 6_000 - Date.now())));
      for (const { cli, user } of signedIn) {
        const from = cli.events.length;
        expect(textOf(await cli.call('list_notes'))).toBe(`${user} has no notes yet.`);
        // The resource asks for a new nonce, the SDK signs again at once; then the token has expired: a refresh, with a proof.
        expect(cli.requests(from)).toEqual(['POST /mcp 401 tools/call', 'POST /mcp 401 tools/call', 'POST /oauth/token 200 refresh_token', 'POST /mcp 200 tools/call']);
        const refusals = cli.events.slice(from).filter((event) => event.event === 'http' && event.status === 401);
        expect(refusals.map((event) => [/error="([^"]+)"/.exec(event.wwwAuthenticate as string)?.[1], event.nonce])).toEqual([
          ['use_dpop_nonce', true],
          ['invalid_token', false],
        ]);
        expect(cli.events.find((event, i) => i >= from && event.grantType === 'refresh_token')).toMatchObject({ proof: true });
        const after = await cli.state();
        expect([after.tokensSaved, decodeJwt(after.tokens.access_token).cnf]).toEqual([2, { jkt: after.dpopThumbprint }]);
      }
    } finally {
      for (const { cli } of signedIn) await stop(cli.process);
    }
  });
});
