/**
 * Sign-in as a user lives it: the example runs as a child process (`node dist/main.js`) on
 * 127.0.0.1; a command-line client (fixtures/client.ts: the official SDK v2 client, unmodified,
 * with an OAuthClientProvider and a loopback redirect URI) runs in another; headless Chromium
 * signs the user in and answers the consent page. The client names itself by a Client ID
 * Metadata Document, served here over HTTPS under a CA made for the run with openssl, or
 * registers itself (DCR); in the handshake era (2025-11-25) and the stateless one (2026-07-28).
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import type { Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext } from 'playwright-core';
import { launchChromium } from '../../../test-support/appsHost';
import { answer, bannerUrl, Cli, freePort, HANDSHAKE, readConsent, signIn, signInAs, STATELESS, stepUpAndAdd, stop, stopAll, textOf, track, WAIT_MS } from './signInKit';
import type { NotesServer } from './signInKit';

jest.setTimeout(60_000);

const MAIN = path.join(__dirname, '..', 'dist', 'main.js');
const SECRET = 'the sign-in test secret, at least thirty-two characters';

// ---------------------------------------------------------------------------------------------
// The servers of the test

/** A CA made for this run, and a certificate it signed for IP:127.0.0.1. */
function makeCertificates(dir: string): { caFile: string; key: Buffer; cert: Buffer } {
  const openssl = (...args: string[]) => {
    try {
      execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
    } catch (error) {
      throw new Error(`openssl ${args[0]} failed (the test makes its CA with the openssl command): ${(error as Error).message}`);
    }
  };
  const ecKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  openssl('req', '-x509', ...ecKey, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '1', '-subj', '/CN=typemcp sign-in test CA', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
  openssl('req', ...ecKey, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1');
  fs.writeFileSync(path.join(dir, 'server.ext'), 'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n');
  openssl('x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem', '-days', '1', '-extfile', 'server.ext');
  return { caFile: path.join(dir, 'ca.pem'), key: fs.readFileSync(path.join(dir, 'server.key')), cert: fs.readFileSync(path.join(dir, 'server.pem')) };
}

/** Where the clients' metadata documents are published, over HTTPS on 127.0.0.1. */
interface DocumentServer {
  origin: string;
  /** The paths requested, in order (the authorization server fetches the documents). */
  requests: string[];
  publish(pathname: string, document: object): void;
  close(): Promise<void>;
}

async function startDocumentServer(tls: { key: Buffer; cert: Buffer }): Promise<DocumentServer> {
  const documents = new Map<string, string>();
  const requests: string[] = [];
  const server: HttpsServer = createHttpsServer(tls, (req, res) => {
    requests.push(req.url ?? '');
    const document = documents.get(req.url ?? '');
    if (document === undefined) res.writeHead(404).end();
    else res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=300' }).end(document);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    publish: (pathname, document) => documents.set(pathname, JSON.stringify(document)),
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** The example, as `npm start` runs it, on a port of its own. */
async function startNotesServer(caFile: string, env: Record<string, string> = {}): Promise<NotesServer> {
  const port = await freePort();
  const child = spawn(process.execPath, [MAIN], {
    env: {
      ...process.env,
      PORT: String(port),
      SIGNIN_SECRET: SECRET,
      // This test serves the metadata documents on 127.0.0.1, which the server refuses by default.
      SIGNIN_ALLOW_PRIVATE_CLIENT_DOCUMENTS: '1',
      NODE_EXTRA_CA_CERTS: caFile,
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const handle = track(child);
  const url = await bannerUrl(handle, 'the notes server');
  return { origin: new URL(url).origin, url, process: handle };
}

// ---------------------------------------------------------------------------------------------

let tmp: string;
let caFile: string;
let documents: DocumentServer;
let notes: NotesServer;
let shortLived: NotesServer;
let browser: Browser;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'signin-test-'));
  const tls = makeCertificates(tmp);
  caFile = tls.caFile;
  documents = await startDocumentServer(tls);
  // The second server's access tokens last a second: the refresh test waits them out.
  [notes, shortLived, browser] = await Promise.all([startNotesServer(caFile), startNotesServer(caFile, { ACCESS_TOKEN_TTL_SEC: '1' }), launchChromium()]);
});

afterAll(async () => {
  await browser?.close();
  // Each child by its pid: the clients, then the servers.
  await stopAll();
  await documents?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

let clients = 0;

/** A client of `server`: by metadata document (published here once the client knows its redirect URI) or by registration. */
async function startCli(server: NotesServer, protocol: string, registration: 'CIMD' | 'DCR'): Promise<Cli> {
  const name = `Notes CLI ${++clients} (${registration}, ${protocol})`;
  const pathname = `/clients/notes-cli-${clients}.json`;
  const metadataUrl = registration === 'CIMD' ? `${documents.origin}${pathname}` : undefined;
  const cli = await Cli.start({ server, protocol, name, caFile, metadataUrl });
  cli.metadataUrl = metadataUrl;
  if (metadataUrl !== undefined) {
    documents.publish(pathname, {
      client_id: metadataUrl,
      client_name: name,
      redirect_uris: [cli.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    });
  }
  return cli;
}

describe('without a token', () => {
  it('is refused with 401 naming the scope to ask for (notes:read) and the resource metadata, in both eras', async () => {
    const resourceMetadata = `${notes.origin}/.well-known/oauth-protected-resource/mcp`;
    const challenge = `Bearer resource_metadata="${resourceMetadata}", scope="notes:read"`;
    const handshake = await fetch(notes.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: HANDSHAKE, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
    });
    expect(handshake.status).toBe(401);
    expect(handshake.headers.get('www-authenticate')).toBe(challenge);
    const stateless = await fetch(notes.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': STATELESS, 'mcp-method': 'tools/call', 'mcp-name': 'list_notes' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'list_notes', arguments: {}, _meta: { 'io.modelcontextprotocol/protocolVersion': STATELESS, 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' } } },
      }),
    });
    expect(stateless.status).toBe(401);
    expect(stateless.headers.get('www-authenticate')).toBe(challenge);

    expect(await (await fetch(resourceMetadata)).json()).toMatchObject({ resource: notes.url, authorization_servers: [notes.origin], scopes_supported: ['notes:read', 'notes:write'] });
    expect(await (await fetch(`${notes.origin}/.well-known/oauth-authorization-server`)).json()).toMatchObject({
      issuer: notes.origin,
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
      code_challenge_methods_supported: ['S256'],
      registration_endpoint: `${notes.origin}/oauth/register`,
    });
  });
});

/** What each user's notes on the main server should read, as the tests add them. */
const notesOf = new Map<string, string[]>();
const expectedList = (user: string) => {
  const list = notesOf.get(user) ?? [];
  return list.length === 0 ? `${user} has no notes yet.` : list.map((note, i) => `${i + 1}. ${note}`).join('\n');
};

describe.each([
  { protocol: HANDSHAKE, registration: 'CIMD' as const, user: 'alice' },
  { protocol: STATELESS, registration: 'DCR' as const, user: 'bob' },
  { protocol: STATELESS, registration: 'CIMD' as const, user: 'alice' },
  { protocol: HANDSHAKE, registration: 'DCR' as const, user: 'bob' },
])('the SDK v2 client at $protocol, by $registration, signed in as $user', ({ protocol, registration, user }) => {
  let cli: Cli;
  let context: BrowserContext;

  beforeAll(async () => {
    cli = await startCli(notes, protocol, registration);
    // The user's browser: its sign-in cookie outlives one authorization, as in life.
    context = await browser.newContext();
  });
  afterAll(async () => {
    await context?.close();
    if (cli) await stop(cli.process);
  });

  it('signs in: 401, resource metadata, server metadata, the login and consent pages in Chromium, tokens, then list_notes as the user', async () => {
    const documentRequests = documents.requests.length;
    const { consent, requests } = await signIn(cli, context, user, protocol);
    const probe = protocol === HANDSHAKE ? 'initialize' : 'server/discover';
    expect(requests.slice(0, registration === 'DCR' ? 6 : 5)).toEqual([
      `POST /mcp 401 ${probe}`,
      'GET /.well-known/oauth-protected-resource/mcp 200',
      'GET /.well-known/oauth-authorization-server 200',
      ...(registration === 'DCR' ? ['POST /oauth/register 201'] : []),
      'POST /oauth/token 200 authorization_code',
      `POST /mcp 200 ${probe}`,
    ]);
    // The 401 the SDK saw named the scope it then asked for.
    expect(cli.events.find((event) => event.event === 'http' && event.status === 401)?.wwwAuthenticate).toContain('scope="notes:read"');
    const authorizeUrl = new URL((cli.events.find((event) => event.event === 'authorize')!.url as string));
    expect(Object.fromEntries(authorizeUrl.searchParams)).toMatchObject({ scope: 'notes:read', code_challenge_method: 'S256', resource: notes.url, redirect_uri: cli.redirectUrl });

    const state = await cli.state();
    expect(state.tokensSaved).toBe(1);
    expect(state.tokens.scope).toBe('notes:read');
    if (registration === 'CIMD') {
      // The client id is the document's URL, which the authorization server fetched over HTTPS.
      expect(state.clientInformation.client_id).toBe(cli.metadataUrl);
      expect(documents.requests.slice(documentRequests)).toContain(new URL(cli.metadataUrl!).pathname);
      expect(consent).toEqual({ clientName: cli.label, domain: new URL(documents.origin).host, standing: 'published at', scopes: ['notes:read — Read your notes'], alreadyAllowed: null });
    } else {
      expect(state.clientInformation.client_id).not.toMatch(/^https:/);
      // A registration only claims its name and redirect: the page names the redirect's host, unverified.
      expect(consent).toEqual({ clientName: cli.label, domain: new URL(cli.redirectUrl).host, standing: 'not verified', scopes: ['notes:read — Read your notes'], alreadyAllowed: null });
    }

    expect(textOf(await cli.call('list_notes'))).toBe(expectedList(user));
  });

  it('steps up to notes:write through the 403: the consent page asks for notes:write only, then add_note succeeds', async () => {
    const from = cli.events.length;
    const note = `written through ${cli.label}`;
    // The SDK asks for what it had and what the 403 named; still signed in, the consent page comes at once.
    const { reply, consent, requests } = await stepUpAndAdd(cli, context, note);
    expect(consent.scopes).toEqual(['notes:write — Add notes for you']);
    expect(consent.alreadyAllowed).toBe('You already allowed it: notes:read.');
    notesOf.set(user, [...(notesOf.get(user) ?? []), note]);
    expect(textOf(reply)).toBe(`Added note ${notesOf.get(user)!.length} for ${user}.`);
    const refused = cli.events.slice(from).find((event) => event.event === 'http' && event.status === 403);
    expect(refused).toMatchObject({ rpc: 'tools/call' });
    expect(refused!.wwwAuthenticate).toContain('error="insufficient_scope"');
    expect(requests).toEqual(['POST /mcp 403 tools/call', 'POST /oauth/token 200 authorization_code', 'POST /mcp 200 tools/call']);
    expect((await cli.state()).tokens.scope).toBe('notes:read notes:write');
    expect(textOf(await cli.call('list_notes'))).toBe(expectedList(user));
  });

  it('refuses a revoked grant: its access token gets 401 and its refresh token invalid_grant; the SDK then signs in anew', async () => {
    const { tokens, clientInformation, tokensSaved } = await cli.state();
    const form = (fields: Record<string, string>) => ({ method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields) });
    const revoked = await fetch(`${notes.origin}/oauth/revoke`, form({ token: tokens.refresh_token, token_type_hint: 'refresh_token', client_id: clientInformation.client_id }));
    expect(revoked.status).toBe(200);

    const withToken = await fetch(notes.url, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: HANDSHAKE, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
    });
    expect(withToken.status).toBe(401);
    expect(withToken.headers.get('www-authenticate')).toContain('error="invalid_token"');
    const refreshed = await fetch(`${notes.origin}/oauth/token`, form({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: clientInformation.client_id }));
    expect(refreshed.status).toBe(400);
    expect(await refreshed.json()).toMatchObject({ error: 'invalid_grant' });

    // The SDK meets the same: 401, a refused refresh, and a new authorization, which the
    // signed-in user who allowed both scopes passes without a page.
    const from = cli.events.length;
    const authorization = cli.nextAuthorization();
    const listing = cli.call('list_notes');
    const page = await context.newPage();
    try {
      await page.goto(await authorization);
      expect(page.url().startsWith(cli.redirectUrl)).toBe(true);
    } finally {
      await page.close();
    }
    expect(textOf(await listing)).toBe(expectedList(user));
    expect(cli.requests(from)).toEqual(['POST /mcp 401 tools/call', 'POST /oauth/token 400 refresh_token', 'POST /oauth/token 200 authorization_code', 'POST /mcp 200 tools/call']);
    expect(cli.events.slice(from).filter((event) => event.event === 'invalidated').map((event) => event.scope)).toEqual(['tokens']);
    expect(cli.process.stderr()).toContain('invalid_grant');
    expect((await cli.state()).tokensSaved).toBe(tokensSaved + 1);
  });
});

describe('a user who denies', () => {
  it('sends the client back error=access_denied with its state and the issuer', async () => {
    const cli = await startCli(notes, HANDSHAKE, 'DCR');
    const context = await browser.newContext();
    try {
      const authorization = cli.nextAuthorization();
      const connecting = cli.send({ command: 'connect' });
      const authorizeUrl = new URL(await authorization);
      const page = await context.newPage();
      await page.goto(authorizeUrl.href);
      await signInAs(page, 'bob');
      expect((await readConsent(page)).scopes).toEqual(['notes:read — Read your notes']);
      const back = await answer(page, cli, 'Deny');
      expect(await page.locator('#done').textContent()).toBe('Sign-in was not completed.');
      expect(Object.fromEntries(back.searchParams)).toEqual({
        error: 'access_denied',
        error_description: 'The user denied the request',
        state: authorizeUrl.searchParams.get('state'),
        iss: notes.origin,
      });
      const refused = await connecting;
      expect(refused.ok).toBe(false);
      expect(refused.error?.callback).toMatchObject({ error: 'access_denied', state: authorizeUrl.searchParams.get('state'), iss: notes.origin });
      expect((await cli.state()).tokensSaved).toBe(0);
    } finally {
      await context.close();
      await stop(cli.process);
    }
  });
});

describe('an access token that expired', () => {
  it('is refreshed by the SDK on the 401, and the call succeeds, in both eras', async () => {
    const signedIn: Array<{ cli: Cli; user: string }> = [];
    for (const [protocol, registration, user] of [
      [HANDSHAKE, 'DCR', 'alice'],
      [STATELESS, 'CIMD', 'bob'],
    ] as const) {
      const cli = await startCli(shortLived, protocol, registration);
      const context = await browser.newContext();
      try {
        await signIn(cli, context, user, protocol);
      } finally {
        await context.close();
      }
      expect(textOf(await cli.call('list_notes'))).toBe(`${user} has no notes yet.`);
      expect((await cli.state()).tokensSaved).toBe(1);
      signedIn.push({ cli, user });
    }

    // Until the server refuses the tokens (their lifetime, plus whatever leeway it allows for clocks).
    const expiredAt = Date.now();
    for (const { cli } of signedIn) {
      const { access_token } = (await cli.state()).tokens;
      for (;;) {
        const response = await fetch(shortLived.url, {
          method: 'POST',
          headers: { authorization: `Bearer ${access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: HANDSHAKE, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
        });
        await response.body?.cancel();
        if (response.status === 401) break;
        if (Date.now() - expiredAt > WAIT_MS) throw new Error(`the access token of ${cli.label} was still accepted ${WAIT_MS} ms later`);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }

    for (const { cli, user } of signedIn) {
      const from = cli.events.length;
      expect(textOf(await cli.call('list_notes'))).toBe(`${user} has no notes yet.`);
      expect(cli.requests(from)).toEqual(['POST /mcp 401 tools/call', 'POST /oauth/token 200 refresh_token', 'POST /mcp 200 tools/call']);
      expect((await cli.state()).tokensSaved).toBe(2);
      await stop(cli.process);
    }
  });
});
