/**
 * The client with TypeMCP on Bun and Deno: the notes server of examples/07-runtimes, bundled by
 * `typemcp build --target bun|deno` and served by Bun.serve and Deno.serve on 127.0.0.1, called
 * in both eras by the client on Node, and by the client itself running on that runtime (a
 * program bundled from the package's Web entry with esbuild). The runtimes are the npm
 * packages of test-support/runtimes (scripts/test-services.js).
 */
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { Client, StreamableHttpClientTransport } from '@typemcp/client';

const root = path.resolve(__dirname, '..', '..', '..');
const example = path.join(root, 'examples', '07-runtimes');
const bin = (name: string) => path.join(root, 'test-support', 'runtimes', 'node_modules', '.bin', name);
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'typemcp-client-runtimes-'));
const probe = path.join(scratch, 'probe.mjs');
const text = (result: { content: Array<{ text?: string }> }) => result.content.map((c) => c.text).join('');

beforeAll(async () => {
  const tsc = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-b', 'packages/core', 'packages/client', 'packages/cli', 'examples/07-runtimes'], { cwd: root, encoding: 'utf8' });
  if (tsc.status !== 0) throw new Error(`tsc -b failed:\n${tsc.stdout}${tsc.stderr}`);
  for (const runtime of ['bun', 'deno']) {
    const built = spawnSync('npm', ['run', '-s', `bundle:${runtime}`], { cwd: example, encoding: 'utf8' });
    if (built.status !== 0) throw new Error(`typemcp build --target ${runtime} failed:\n${built.stdout}${built.stderr}`);
  }
  // The package as a Web program gets it: the `worker` export condition, @typemcp/client and @typemcp/core built.
  await build({ entryPoints: [path.join(__dirname, 'runtimes', 'probe.ts')], bundle: true, format: 'esm', platform: 'neutral', mainFields: ['module', 'main'], conditions: ['worker'], outfile: probe, logLevel: 'silent', absWorkingDir: root });
}, 180_000);
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = net.createServer();
    socket.once('error', reject);
    socket.listen(0, '127.0.0.1', () => {
      const { port } = socket.address() as net.AddressInfo;
      socket.close(() => resolve(port));
    });
  });
}

type Runtime = 'bun' | 'deno';

/** The command that runs a module on the runtime. */
function command(runtime: Runtime, file: string, args: string[] = []): [string, string[], NodeJS.ProcessEnv] {
  if (runtime === 'bun') return [bin('bun'), [file, ...args], {}];
  return [bin('deno'), ['run', '--no-prompt', '--allow-net=127.0.0.1', '--allow-env', file, ...args], { DENO_DIR: path.join(scratch, 'deno'), DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' }];
}

async function serve(runtime: Runtime): Promise<{ url: string; stop(): Promise<void>; log(): string }> {
  const port = await freePort();
  const [cmd, args, extra] = command(runtime, path.join(example, 'dist', 'bundle', runtime, 'server.mjs'));
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra, PORT: String(port), MCP_REQUEST_STATE_SECRET: 'client-runtimes-secret-0123456789abcdef' };
  delete env.NODE_OPTIONS;
  const child: ChildProcess = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}/mcp`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${runtime} exited (${child.exitCode}):\n${output}`);
    try {
      await (await fetch(url)).body?.cancel();
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
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

function runProbe(runtime: Runtime, url: string, version: string): Promise<Record<string, unknown>> {
  const [cmd, args, extra] = command(runtime, probe, [url, version]);
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env: { ...process.env, ...extra }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(JSON.parse(out.trim().split('\n').pop()!) as Record<string, unknown>);
      else reject(new Error(`the probe on ${runtime} exited ${code}:\n${out}${err}`));
    });
  });
}

describe.each<Runtime>(['bun', 'deno'])('TypeMCP on %s', (runtime) => {
  it.each(['2025-11-25', '2026-07-28'])('answers the client on Node at %s, and the client running on the runtime itself', async (version) => {
    const served = await serve(runtime);
    try {
      const client = await Client.connect(new StreamableHttpClientTransport(served.url), { protocolVersion: version, onElicit: async () => ({ action: 'accept', content: { confirm: true } }) });
      expect(client.protocolVersion).toBe(version);
      expect((await client.listAllTools()).map((tool) => tool.name).sort()).toEqual(['add_note', 'clear_notes']);
      expect(text(await client.callTool('add_note', { title: 'Ship it', priority: 3, topic: 'deploy' }))).toBe('Added note 1: Ship it (priority 3)');
      expect(text(await client.callTool('clear_notes', { topic: 'deploy' }))).toBe('Cleared 1 notes');
      await client.close();
      expect(await runProbe(runtime, served.url, version)).toEqual({
        protocolVersion: version,
        tools: ['add_note', 'clear_notes'],
        added: 'Added note 1: From the probe (priority 2)',
        cleared: 'Cleared 1 notes',
      });
    } catch (error) {
      throw new Error(`${(error as Error).message}\n--- ${runtime} said:\n${served.log()}`);
    } finally {
      await served.stop();
    }
  }, 90_000);
});
