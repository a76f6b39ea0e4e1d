// The Worker as Cloudflare runs it: the bundle of `typemcp build --target workers` served by
// workerd through `wrangler dev --local` (wrangler needs Node 22.12 or later), and called over
// HTTP at protocol 2026-07-28. `npm run test:worker` bundles first.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { after, before, test } from 'node:test';

const bundle = path.join(import.meta.dirname, '..', 'dist', 'bundle');
const wrangler = path.join(import.meta.dirname, '..', 'node_modules', 'wrangler', 'bin', 'wrangler.js');
const VERSION = '2026-07-28';
let child;
let url;
let output = '';

const freePort = () =>
  new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });

before(async () => {
  const port = await freePort();
  url = `http://127.0.0.1:${port}/mcp`;
  child = spawn(process.execPath, [wrangler, 'dev', '--local', '--ip', '127.0.0.1', '--port', String(port), '--inspector-port', '0', '--var', 'MCP_REQUEST_STATE_SECRET:a-test-secret-of-some-length'], {
    cwd: bundle,
    // No metrics, update check or Request.cf download: the test needs no network.
    env: { ...process.env, CI: 'true', WRANGLER_SEND_METRICS: 'false', WRANGLER_HIDE_BANNER: 'true', CLOUDFLARE_CF_FETCH_ENABLED: 'false', NO_COLOR: '1' },
    detached: true,
  });
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  for (const deadline = Date.now() + 60_000; ; ) {
    if (child.exitCode !== null) throw new Error(`wrangler exited:\n${output}`);
    try {
      await fetch(url);
      return;
    } catch {
      if (Date.now() > deadline) throw new Error(`wrangler dev did not answer in 60 s:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
});

after(() => {
  if (child?.exitCode === null) process.kill(-child.pid, 'SIGTERM');
});

let id = 0;
async function call(method, params) {
  // The Mcp-Name header mirrors the tool's or prompt's name, or the resource's uri.
  const mirrored = params.name ?? params.uri;
  const name = typeof mirrored === 'string' ? { 'mcp-name': mirrored } : {};
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': VERSION, 'mcp-method': method, ...name },
    body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params: { ...params, _meta: { 'io.modelcontextprotocol/protocolVersion': VERSION, 'io.modelcontextprotocol/clientCapabilities': {} } } }),
  });
  assert.equal(response.status, 200, output);
  return response.json();
}

const textOf = (answer) => answer.result.content.map((block) => block.text ?? '').join('');

test('says hello and refuses invalid arguments, on workerd', async () => {
  assert.equal(textOf(await call('tools/call', { name: 'hello', arguments: { name: 'Edge' } })), 'Hello, Edge!');
  const invalid = await call('tools/call', { name: 'hello', arguments: { name: '' } });
  assert.equal(invalid.result.isError, true);
  assert.match(textOf(invalid), /name/);
});
