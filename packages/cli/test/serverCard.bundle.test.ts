/**
 * A server with an icon given as a file and a server card, bundled by `typemcp build --target
 * bun|deno` and served by `fetchHandler` on that runtime: the icon file is gone before the bundle
 * runs, so the data URI the client sees in `initialize`, `server/discover` and the card came
 * from the build. The card validates against the extension's schema and is served with its
 * media type, caching and CORS headers. Runtimes from test-support/runtimes.
 */
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

const root = path.resolve(__dirname, '..', '..', '..');
const bin = (name: string) => path.join(root, 'test-support', 'runtimes', 'node_modules', '.bin', name);
const cardSchema = JSON.parse(fs.readFileSync(path.join(root, 'test-support/spec/extensions/server-card/server-card.schema.json'), 'utf8'));
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
const validateCard = ajv.compile({ ...cardSchema, $ref: '#/$defs/ServerCard' });

// A 1x1 PNG.
const ICON = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HCAAAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const DATA_URI = `data:image/png;base64,${ICON.toString('base64')}`;

// Plain CommonJS: no tsc; the same entry serves on Bun and Deno, and listens inertly while typemcp build loads it under Node.
const ENTRY = `
const { McpServer } = require('@typemcp/core');
const server = new McpServer({
  name: 'com.example/icons',
  version: '1.0.0',
  title: 'Icons',
  description: 'A server whose icon is a file.',
  icons: [{ file: './assets/icon.png', sizes: ['1x1'] }],
  serverCard: true,
});
const port = Number(process.env.PORT);
const handler = server.fetchHandler({ path: '/mcp' });
if (typeof Bun !== 'undefined') Bun.serve({ port, hostname: '127.0.0.1', fetch: handler });
else if (typeof Deno !== 'undefined') Deno.serve({ port, hostname: '127.0.0.1', onListen() {} }, handler);
`;

type Runtime = 'bun' | 'deno';

let project: string;

beforeAll(() => {
  const tsc = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-b', 'packages/core', 'packages/cli'], { cwd: root, encoding: 'utf8' });
  if (tsc.status !== 0) throw new Error(`tsc -b failed:\n${tsc.stdout}${tsc.stderr}`);
  // Inside the repository, so that the entry resolves the workspace's @typemcp/core.
  project = fs.mkdtempSync(path.join(__dirname, '.server-card-'));
  fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'server-card-bundle', private: true, type: 'commonjs' }));
  fs.writeFileSync(path.join(project, 'main.js'), ENTRY);
}, 240_000);

afterAll(() => fs.rmSync(project, { recursive: true, force: true }));

function buildFor(runtime: Runtime): string {
  fs.mkdirSync(path.join(project, 'assets'), { recursive: true });
  fs.writeFileSync(path.join(project, 'assets', 'icon.png'), ICON);
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  const built = spawnSync(process.execPath, [path.join(root, 'packages/cli/dist/bin.js'), 'build', 'main.js', '--no-tsc', '--target', runtime, '--outfile', `dist/${runtime}.mjs`], { cwd: project, encoding: 'utf8', env });
  if (built.status !== 0) throw new Error(`typemcp build --target ${runtime} failed:\n${built.stdout}${built.stderr}`);
  // What the bundle serves must come from the build.
  fs.rmSync(path.join(project, 'assets'), { recursive: true, force: true });
  return path.join(project, 'dist', `${runtime}.mjs`);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

async function serve(runtime: Runtime, bundle: string): Promise<{ url: string; log(): string; stop(): Promise<void> }> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port) };
  delete env.NODE_OPTIONS;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'typemcp-card-runtime-'));
  const child: ChildProcess =
    runtime === 'bun'
      ? spawn(bin('bun'), [bundle], { cwd: scratch, env, detached: true })
      : spawn(bin('deno'), ['run', '--no-prompt', '--allow-net=127.0.0.1', '--allow-env', bundle], { cwd: scratch, env: { ...env, DENO_DIR: scratch, DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' }, detached: true });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}/mcp`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${runtime} exited (${child.exitCode}):\n${output}`);
    try {
      await fetch(`${url}/server-card`);
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`${runtime} did not answer within 60 s:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  return {
    url,
    log: () => output,
    stop: async () => {
      if (child.exitCode === null) process.kill(-child.pid!, 'SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
      if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
      fs.rmSync(scratch, { recursive: true, force: true });
    },
  };
}

async function post(url: string, body: object, headers: Record<string, string> = {}): Promise<Record<string, any>> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(body) });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, any>;
}

const MODERN = '2026-07-28';

describe.each<Runtime>(['bun', 'deno'])('a server card and a file icon bundled for %s', (runtime) => {
  it('serves the card with its headers, 304 and preflight, and the icon from the build in the card, initialize and server/discover', async () => {
    const served = await serve(runtime, buildFor(runtime));
    try {
      const response = await fetch(`${served.url}/server-card`, { headers: { accept: 'application/mcp-server-card+json', origin: 'https://elsewhere.example' } });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/mcp-server-card+json');
      expect(response.headers.get('cache-control')).toBe('public, max-age=3600');
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(response.headers.get('access-control-expose-headers')).toBe('ETag');
      const etag = response.headers.get('etag')!;
      expect(etag).toMatch(/^".+"$/);
      const card = (await response.json()) as Record<string, any>;
      expect(validateCard(card) ? [] : validateCard.errors).toEqual([]);
      expect(card.icons).toEqual([{ src: DATA_URI, sizes: ['1x1'] }]);
      expect(card.remotes).toEqual([{ type: 'streamable-http', url: served.url, supportedProtocolVersions: expect.arrayContaining([MODERN]) }]);

      const revalidated = await fetch(`${served.url}/server-card`, { headers: { 'if-none-match': etag } });
      expect([revalidated.status, revalidated.headers.get('etag'), await revalidated.text()]).toEqual([304, etag, '']);
      const preflight = await fetch(`${served.url}/server-card`, { method: 'OPTIONS', headers: { origin: 'https://elsewhere.example', 'access-control-request-method': 'GET' } });
      expect([preflight.status, preflight.headers.get('access-control-allow-methods'), preflight.headers.get('access-control-allow-headers')]).toEqual([204, 'GET', 'Content-Type, If-None-Match']);

      const init = await post(served.url, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
      const { name, version, title, description, icons } = card;
      expect(init.result.serverInfo).toEqual({ name, version, title, description, icons });
      const discover = await post(
        served.url,
        { jsonrpc: '2.0', id: 2, method: 'server/discover', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} } } },
        { 'mcp-protocol-version': MODERN, 'mcp-method': 'server/discover' },
      );
      expect(discover.result._meta['io.modelcontextprotocol/serverInfo']).toEqual({ name, version, title, description, icons });
      expect(discover.result.supportedVersions).toEqual(card.remotes[0].supportedProtocolVersions);
    } catch (error) {
      throw new Error(`${(error as Error).message}\n--- ${runtime} said:\n${served.log()}`);
    } finally {
      await served.stop();
    }
  }, 120_000);
});
