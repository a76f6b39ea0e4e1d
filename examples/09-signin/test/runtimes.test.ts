/**
 * Sign-in on Bun, Deno and Cloudflare Workers: the example bundled by `typemcp build --target
 * bun|deno|workers` and served through `fetchHandler` by each runtime as a user would run it
 * (Bun.serve, Deno.serve, `wrangler dev --local` on workerd, its store a Durable Object). The
 * command-line client (fixtures/client.ts: the official SDK v2 client) registers itself (DCR)
 * and Chromium signs the user in and answers the consent page. Metadata-document clients are
 * not signed in here: those runtimes' fetch would need the test CA; the fetcher they use is
 * checked instead. The runtimes are the npm packages of test-support/runtimes.
 */
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext } from 'playwright-core';
import { launchChromium } from '../../../test-support/appsHost';
import { bannerUrl, Cli, freePort, HANDSHAKE, signIn, STATELESS, stepUpAndAdd, stop, stopAll, textOf, track } from './signInKit';
import type { ChildHandle, NotesServer } from './signInKit';

jest.setTimeout(120_000);

const example = path.resolve(__dirname, '..');
const root = path.resolve(example, '..', '..');
const runtimes = path.join(root, 'test-support', 'runtimes', 'node_modules');
const bin = (name: string) => path.join(runtimes, '.bin', name);
const SECRET = 'the runtime sign-in test secret, at least thirty-two characters';
const REQUEST_STATE_SECRET = 'the runtime requestState secret, thirty-two characters or more';

type Runtime = 'bun' | 'deno' | 'workers';
const RUNTIMES: Runtime[] = ['bun', 'deno', 'workers'];

/** Folders of this run (Deno's cache, wrangler's home and state), removed at the end. */
const scratch: string[] = [];
const scratchDir = (prefix: string) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  scratch.push(dir);
  return dir;
};

function run(command: string, args: string[], cwd: string, what: string): void {
  const done = spawnSync(command, args, { cwd, encoding: 'utf8' });
  if (done.status !== 0) throw new Error(`${what} failed:\n${done.stdout}${done.stderr}`);
}

/** A Worker without a store, bundled into its own folder (where the build writes its wrangler.toml). */
let noStoreBundle: string;

function buildAll(): void {
  run(process.execPath, [require.resolve('typescript/bin/tsc'), '-b', 'packages/core', 'packages/cli', 'packages/auth', 'examples/09-signin'], root, 'tsc -b');
  for (const runtime of RUNTIMES) run('npm', ['run', '-s', `bundle:${runtime}`], example, `typemcp build --target ${runtime}`);
  noStoreBundle = scratchDir('signin-no-store-');
  const cli = path.join(root, 'packages', 'cli', 'dist', 'bin.js');
  run(process.execPath, [cli, 'build', 'test/fixtures/no-store/worker.mjs', '--no-tsc', '--target', 'workers', '--outfile', path.join(noStoreBundle, 'worker.mjs')], example, 'typemcp build of the no-store Worker');
}

/** `wrangler dev --local` (workerd) in `folder` on `port`; Node 22 runs wrangler; offline, as 07-runtimes runs it. */
function startWrangler(folder: string, port: number, vars: Record<string, string>, persistTo: string): ChildProcess {
  const home = scratchDir('signin-wrangler-home-');
  const args = [path.join(runtimes, 'wrangler', 'bin', 'wrangler.js'), 'dev', '--local', '--ip', '127.0.0.1', '--port', String(port), '--inspector-port', '0', '--persist-to', persistTo];
  for (const [name, value] of Object.entries(vars)) args.push('--var', `${name}:${value}`);
  args.push('--show-interactive-dev-session=false');
  const env: NodeJS.ProcessEnv = { ...process.env, CI: 'true', WRANGLER_SEND_METRICS: 'false', WRANGLER_HIDE_BANNER: 'true', CLOUDFLARE_CF_FETCH_ENABLED: 'false', XDG_CONFIG_HOME: home, HOME: home, NO_COLOR: '1' };
  delete env.NODE_OPTIONS;
  return spawn(bin('node'), args, { cwd: folder, env, detached: true });
}

/** Resolves once `url` answers at all; wrangler says nothing machine-readable when it is ready. */
async function answering(url: string, handle: ChildHandle, what: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (handle.child.exitCode !== null) throw new Error(`${what} exited (${handle.child.exitCode}): ${handle.stderr()}`);
    try {
      await (await fetch(url)).body?.cancel();
      return;
    } catch {
      if (Date.now() > deadline) throw new Error(`${what} did not answer within 60 s: ${handle.stderr()}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

/** The example's bundle for `runtime`, on a port of its own; for workers, its Durable Object's storage in `persistTo`. */
async function serve(runtime: Runtime, port: number, persistTo?: string): Promise<NotesServer> {
  const bundle = path.join(example, 'dist', 'bundle', runtime);
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), SIGNIN_SECRET: SECRET, MCP_REQUEST_STATE_SECRET: REQUEST_STATE_SECRET };
  delete env.NODE_OPTIONS;
  if (runtime === 'workers') {
    const origin = `http://127.0.0.1:${port}`;
    const vars = { ORIGIN: origin, SIGNIN_SECRET: SECRET, MCP_REQUEST_STATE_SECRET: REQUEST_STATE_SECRET };
    const handle = track(startWrangler(bundle, port, vars, persistTo ?? scratchDir('signin-wrangler-state-')), { group: true, output: 'both' });
    await answering(`${origin}/.well-known/oauth-authorization-server`, handle, 'wrangler dev');
    return { origin, url: `${origin}/mcp`, process: handle };
  }
  const child =
    runtime === 'bun'
      ? spawn(bin('bun'), [path.join(bundle, 'server.mjs')], { env, detached: true })
      : spawn(bin('deno'), ['run', '--no-prompt', '--allow-net=127.0.0.1', '--allow-env', path.join(bundle, 'server.mjs')], {
          env: { ...env, DENO_DIR: scratchDir('signin-deno-'), DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' },
          detached: true,
        });
  const handle = track(child, { group: true, output: 'both' });
  const url = await bannerUrl(handle, runtime);
  return { origin: new URL(url).origin, url, process: handle };
}

/** The authorization page for a client named by a metadata document on `localhost`: what the server's fetcher says of it. */
async function localhostRefusal(server: NotesServer, redirectUri: string): Promise<{ status: number; text: string }> {
  const authorize = new URL(`${server.origin}/oauth/authorize`);
  for (const [name, value] of Object.entries({ client_id: 'https://localhost:1/client.json', response_type: 'code', redirect_uri: redirectUri, code_challenge: 'x'.repeat(43), code_challenge_method: 'S256' })) {
    authorize.searchParams.set(name, value);
  }
  const response = await fetch(authorize);
  return { status: response.status, text: await response.text() };
}

const form = (fields: Record<string, string>) => ({ method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields) });

/** A raw MCP request with a bearer token: its status. */
async function statusWith(server: NotesServer, token: string): Promise<number> {
  const response = await fetch(server.url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: HANDSHAKE, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
  });
  await response.body?.cancel();
  return response.status;
}

let browser: Browser;

beforeAll(async () => {
  buildAll();
  browser = await launchChromium();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  // Each child by its pid (a runtime by its process group): the clients, then the servers.
  await stopAll();
  for (const dir of scratch) fs.rmSync(dir, { recursive: true, force: true });
});

describe.each(RUNTIMES)('the sign-in example bundled for %s', (runtime) => {
  let port: number;
  /** Workers: the Durable Object's storage, kept across a restart. */
  let persistTo: string;
  let server: NotesServer;
  let alice: Cli;
  let aliceBrowser: BrowserContext;
  let aliceNotes = 0;

  beforeAll(async () => {
    port = await freePort();
    persistTo = scratchDir('signin-wrangler-state-');
    server = await serve(runtime, port, persistTo);
    alice = await Cli.start({ server, protocol: STATELESS, name: `Notes CLI on ${runtime} (DCR, ${STATELESS})` });
    aliceBrowser = await browser.newContext();
  }, 120_000);

  afterAll(async () => {
    await aliceBrowser?.close();
    if (alice) await stop(alice.process);
    if (server) await stop(server.process);
  });

  /** Runs `check`; a failure carries what the runtime printed. */
  const saying = async (check: () => Promise<void>) => {
    try {
      await check();
    } catch (error) {
      (error as Error).message += `\n--- ${runtime} said:\n${server.process.stderr()}`;
      throw error;
    }
  };

  it('signs the SDK v2 client in at 2026-07-28: 401, metadata, registration, the login and consent pages in Chromium, tokens, then list_notes as alice', () =>
    saying(async () => {
      const { consent, requests } = await signIn(alice, aliceBrowser, 'alice', STATELESS);
      expect(requests.slice(0, 6)).toEqual([
        'POST /mcp 401 server/discover',
        'GET /.well-known/oauth-protected-resource/mcp 200',
        'GET /.well-known/oauth-authorization-server 200',
        'POST /oauth/register 201',
        'POST /oauth/token 200 authorization_code',
        'POST /mcp 200 server/discover',
      ]);
      expect(consent).toEqual({ clientName: alice.label, domain: new URL(alice.redirectUrl).host, standing: 'not verified', scopes: ['notes:read — Read your notes'], alreadyAllowed: null });
      const state = await alice.state();
      expect(state.tokens.scope).toBe('notes:read');
      expect(state.clientInformation.client_id).not.toMatch(/^https:/);
      expect(textOf(await alice.call('list_notes'))).toBe('alice has no notes yet.');
    }));

  it('steps up to notes:write through the 403: the consent page asks for notes:write only, then add_note succeeds', () =>
    saying(async () => {
      const { reply, consent, requests } = await stepUpAndAdd(alice, aliceBrowser, `written on ${runtime}`);
      expect(consent.scopes).toEqual(['notes:write — Add notes for you']);
      expect(consent.alreadyAllowed).toBe('You already allowed it: notes:read.');
      expect(textOf(reply)).toBe(`Added note ${++aliceNotes} for alice.`);
      expect(requests).toEqual(['POST /mcp 403 tools/call', 'POST /oauth/token 200 authorization_code', 'POST /mcp 200 tools/call']);
      expect(textOf(await alice.call('list_notes'))).toBe(`1. written on ${runtime}`);
    }));

  it('signs in a handshake-era client (2025-11-25) as bob; its refresh token rotates, and a replayed one ends the grant', () =>
    saying(async () => {
      const bob = await Cli.start({ server, protocol: HANDSHAKE, name: `Notes CLI on ${runtime} (DCR, ${HANDSHAKE})` });
      const context = await browser.newContext();
      try {
        await signIn(bob, context, 'bob', HANDSHAKE);
        expect(textOf(await bob.call('list_notes'))).toBe('bob has no notes yet.');
        const { tokens, clientInformation } = await bob.state();
        const refreshed = await fetch(`${server.origin}/oauth/token`, form({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: clientInformation.client_id }));
        expect(refreshed.status).toBe(200);
        const next = (await refreshed.json()) as { access_token: string; refresh_token: string };
        expect(next.refresh_token).not.toBe(tokens.refresh_token);
        expect(await statusWith(server, next.access_token)).toBe(200);
        // The first refresh token again: a replay, which revokes the grant and every token of it.
        const replayed = await fetch(`${server.origin}/oauth/token`, form({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: clientInformation.client_id }));
        expect(replayed.status).toBe(400);
        expect(await replayed.json()).toMatchObject({ error: 'invalid_grant' });
        expect(await statusWith(server, next.access_token)).toBe(401);
      } finally {
        await context.close();
        await stop(bob.process);
      }
    }));

  it("fetches client metadata documents with the platform's fetch (the web document fetcher): it refuses a localhost URL by its name", () =>
    saying(async () => {
      const { status, text } = await localhostRefusal(server, alice.redirectUrl);
      expect(status).toBe(400);
      expect(text).toContain('https://localhost:1/client.json is not fetched: localhost is a loopback name');
    }));

  if (runtime === 'workers') {
    it('keeps sign-in in the Durable Object: after a restart (new isolates, the notes gone) the same keys sign, and alice is still signed in', () =>
      saying(async () => {
        const jwks = await (await fetch(`${server.origin}/oauth/jwks`)).json();
        await stop(server.process);
        server = await serve(runtime, port, persistTo);
        expect(await (await fetch(`${server.origin}/oauth/jwks`)).json()).toEqual(jwks);
        const from = alice.events.length;
        expect(textOf(await alice.call('list_notes'))).toBe('alice has no notes yet.');
        expect(alice.requests(from)).toEqual(['POST /mcp 200 tools/call']);
      }));
  }
});

describe('on Node, for comparison', () => {
  it('the node document fetcher resolves the name and refuses the address it found', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, [path.join(example, 'dist', 'main.js')], { env: { ...process.env, PORT: String(port), SIGNIN_SECRET: SECRET }, stdio: ['ignore', 'ignore', 'pipe'] });
    const handle = track(child);
    try {
      const url = await bannerUrl(handle, 'node dist/main.js');
      const { status, text } = await localhostRefusal({ origin: new URL(url).origin, url, process: handle }, 'http://127.0.0.1:1/callback');
      expect(status).toBe(400);
      expect(text).toContain('https://localhost:1/client.json is not fetched: localhost resolves to an address that may not be reached');
    } finally {
      await stop(handle);
    }
  });
});

describe('signIn on Workers without a store', () => {
  it('refuses to start in workerd, saying why; a store the author gives is taken', async () => {
    const port = await freePort();
    const handle = track(startWrangler(noStoreBundle, port, {}, scratchDir('signin-wrangler-state-')), { group: true, output: 'both' });
    try {
      await answering(`http://127.0.0.1:${port}/`, handle, 'wrangler dev (no store)');
      const refused = await fetch(`http://127.0.0.1:${port}/`);
      expect(refused.status).toBe(500);
      expect(await refused.text()).toBe(
        'DefinitionError INVALID_OPTION: signIn: store is required on Cloudflare Workers: the default keeps clients, sign-ins, codes, grants and keys in memory, and each Worker isolate has its own, so a sign-in begun in one isolate is unknown to the next. Pass a store shared by every isolate, such as one kept by a Durable Object (docs/guides/signin.md, "Runtimes")',
      );
      const given = await fetch(`http://127.0.0.1:${port}/?store=memory`);
      expect(await given.text()).toBe('started; navigator.userAgent is Cloudflare-Workers');
      expect(given.status).toBe(200);
    } catch (error) {
      (error as Error).message += `\n--- wrangler said:\n${handle.stderr()}`;
      throw error;
    } finally {
      await stop(handle);
    }
  });
});

/**
 * Bun and Deno bundles may import Node's modules (they have them), a Worker's may not; either
 * way, @typemcp/auth must import none at load: its Node fetcher imports them on first use, by
 * a specifier the bundler leaves to run time.
 */
describe('the bundles', () => {
  const metafileOf = (runtime: Runtime) =>
    JSON.parse(fs.readFileSync(path.join(example, 'dist', 'bundle', runtime, runtime === 'workers' ? 'worker.mjs.meta.json' : 'server.mjs.meta.json'), 'utf8')) as {
      inputs: Record<string, { imports: Array<{ path: string; kind: string; external?: boolean }> }>;
    };

  it.each(RUNTIMES)('for %s hold the web document fetcher, and nothing of @typemcp/auth imports a module of Node', (runtime) => {
    const inputs = Object.entries(metafileOf(runtime).inputs);
    const auth = inputs.filter(([file]) => file.includes('packages/auth/dist/'));
    expect(auth.some(([file]) => file.endsWith('packages/auth/dist/signin/clients/fetchers/web.js'))).toBe(true);
    expect(auth.flatMap(([file, input]) => input.imports.filter((i) => i.path.startsWith('node:')).map((i) => `${file} → ${i.path} (${i.kind})`))).toEqual([]);
    if (runtime === 'workers') {
      expect(inputs.flatMap(([file, input]) => input.imports.filter((i) => i.path.startsWith('node:') || (i.external && i.path !== '<runtime>')).map((i) => `${file} → ${i.path}`))).toEqual([]);
    }
  });
});
