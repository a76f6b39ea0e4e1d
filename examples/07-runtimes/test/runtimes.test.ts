/**
 * One decorated server, bundled by `typemcp build --target node|bun|deno|workers` and served
 * by each runtime as a user would run it (node, Bun.serve, Deno.serve, wrangler dev --local on
 * workerd), driven by the official SDK clients over real HTTP on 127.0.0.1: v2 pinned to
 * 2026-07-28 (with an elicitation by multi round-trip), and v1 in stateless handshake mode.
 * The runtimes are the npm packages of test-support/runtimes (scripts/test-services.js).
 */
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const example = path.resolve(__dirname, '..');
const root = path.resolve(example, '..', '..');
const bin = (name: string) => path.join(root, 'test-support', 'runtimes', 'node_modules', '.bin', name);
const SECRET = 'runtimes-test-secret-0123456789abcdef';

type Runtime = 'node' | 'bun' | 'deno' | 'workers';
const RUNTIMES: Runtime[] = ['node', 'bun', 'deno', 'workers'];

function buildAll(): void {
  const tsc = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-b', 'packages/core', 'packages/cli', 'examples/07-runtimes'], { cwd: root, encoding: 'utf8' });
  if (tsc.status !== 0) throw new Error(`tsc -b failed:\n${tsc.stdout}${tsc.stderr}`);
  for (const runtime of RUNTIMES) {
    const built = spawnSync('npm', ['run', '-s', `bundle:${runtime}`], { cwd: example, encoding: 'utf8' });
    if (built.status !== 0) throw new Error(`typemcp build --target ${runtime} failed:\n${built.stdout}${built.stderr}`);
  }
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

interface Served {
  url: URL;
  stop(): Promise<void>;
  log(): string;
}

/** Starts the runtime on the bundle made for it; resolves once it answers HTTP. */
async function serve(runtime: Runtime, stateless: boolean): Promise<Served> {
  const port = await freePort();
  const bundle = path.join(example, 'dist', 'bundle', runtime);
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), MCP_REQUEST_STATE_SECRET: SECRET, MCP_STATELESS: stateless ? '1' : '' };
  delete env.NODE_OPTIONS;
  let child: ChildProcess;
  /** Folders of this run's own (Deno's cache, wrangler's home), removed when it stops. */
  const scratch: string[] = [];
  if (runtime === 'node') child = spawn(process.execPath, [path.join(bundle, 'server.js')], { env, detached: true });
  else if (runtime === 'bun') child = spawn(bin('bun'), [path.join(bundle, 'server.mjs')], { env, detached: true });
  else if (runtime === 'deno') {
    const denoDir = fs.mkdtempSync(path.join(os.tmpdir(), 'typemcp-deno-'));
    scratch.push(denoDir);
    child = spawn(bin('deno'), ['run', '--no-prompt', '--allow-net=127.0.0.1', '--allow-env', path.join(bundle, 'server.mjs')], {
      env: { ...env, DENO_DIR: denoDir, DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' },
      detached: true,
    });
  } else {
    // wrangler needs Node 22; the Worker's secret comes as a var, as `wrangler secret put` would give it.
    // Offline: no metrics, no update check, no Request.cf download; an inspector port of its own.
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'typemcp-wrangler-'));
    scratch.push(home);
    const wrangler = path.join(root, 'test-support', 'runtimes', 'node_modules', 'wrangler', 'bin', 'wrangler.js');
    child = spawn(bin('node'), [wrangler, 'dev', '--local', '--ip', '127.0.0.1', '--port', String(port), '--inspector-port', '0', '--var', `MCP_REQUEST_STATE_SECRET:${SECRET}`, '--show-interactive-dev-session=false'], {
      cwd: bundle,
      env: { ...env, CI: 'true', WRANGLER_SEND_METRICS: 'false', WRANGLER_HIDE_BANNER: 'true', CLOUDFLARE_CF_FETCH_ENABLED: 'false', XDG_CONFIG_HOME: home, HOME: home, NO_COLOR: '1' },
      detached: true,
    });
  }
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = new URL(`http://127.0.0.1:${port}/mcp`);
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${runtime} exited (${child.exitCode}):\n${output}`);
    try {
      await fetch(url, { method: 'GET' });
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
      for (const folder of scratch) fs.rmSync(folder, { recursive: true, force: true });
    },
  };
}

/** Runs `use` against a served runtime with a client; a failure carries what the runtime printed. */
async function withServed(runtime: Runtime, stateless: boolean, client: { close(): Promise<void> }, use: (served: Served) => Promise<void>): Promise<void> {
  const served = await serve(runtime, stateless);
  try {
    await use(served);
  } catch (error) {
    throw new Error(`${(error as Error).message}\n--- ${runtime} said:\n${served.log()}`);
  } finally {
    await client.close().catch(() => undefined);
    await served.stop();
  }
}

const text = (result: object) => (((result as { content?: unknown }).content as Array<{ type: string; text?: string }>) ?? []).map((c) => c.text ?? '').join('\n');

beforeAll(buildAll, 240_000);

describe.each(RUNTIMES)('the notes server bundled for %s', (runtime) => {
  it('serves the SDK v2 client at 2026-07-28: discover, list, calls valid and invalid, an elicitation by multi round-trip, read, prompt, completion', async () => {
    const client = new ClientV2({ name: 'runtimes-v2', version: '1.0.0' }, { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } });
    const asked: string[] = [];
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(String((request.params as { message?: string }).message));
      return { action: 'accept', content: { confirm: true } };
    });
    await withServed(runtime, false, client, async (served) => {
      await client.connect(new TransportV2(served.url) as never);
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      expect(client.getServerVersion()).toMatchObject({ name: 'notes', version: '0.1.0' });
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['add_note', 'clear_notes']);
      expect(text(await client.callTool({ name: 'add_note', arguments: { title: 'Ship it', priority: 3, topic: 'deploy' } }))).toBe('Added note 1: Ship it (priority 3)');
      const invalid = await client.callTool({ name: 'add_note', arguments: { title: '', priority: 9, topic: 'elsewhere' } });
      expect(invalid.isError).toBe(true);
      expect(text(invalid)).toBe(
        'Invalid arguments for tool "add_note":\n- "title": must NOT have fewer than 1 characters\n- "priority": must be <= 5\n- "topic": must be one of "deploy", "decorators", "durable-objects", "deno", "bun"',
      );
      expect((await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate)).toEqual(['notes://{id}']);
      const read = await client.readResource({ uri: 'notes://1' });
      expect(JSON.parse((read.contents[0] as { text: string }).text)).toEqual({ id: 1, title: 'Ship it', priority: 3, topic: 'deploy' });
      const prompt = await client.getPrompt({ name: 'summarize', arguments: { topic: 'deploy' } });
      expect((prompt.messages[0].content as { text: string }).text).toBe('Summarize these notes about deploy:\n- Ship it');
      const completed = await client.complete({ ref: { type: 'ref/prompt', name: 'summarize' }, argument: { name: 'topic', value: 'de' } });
      expect(completed.completion.values).toEqual(['deploy', 'decorators', 'deno']);
      expect(text(await client.callTool({ name: 'clear_notes', arguments: { topic: 'deploy' } }))).toBe('Cleared 1 notes');
      expect(asked).toEqual(['Clear the deploy notes?']);
    });
  }, 120_000);

  it('serves the SDK v1 client in stateless handshake mode: the same, and a clear error for the elicitation', async () => {
    const client = new ClientV1({ name: 'runtimes-v1', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler((await import('@modelcontextprotocol/sdk/types.js')).ElicitRequestSchema, async () => ({ action: 'accept', content: { confirm: true } }));
    await withServed(runtime, true, client, async (served) => {
      await client.connect(new TransportV1(served.url));
      expect(client.getServerVersion()).toMatchObject({ name: 'notes', version: '0.1.0' });
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['add_note', 'clear_notes']);
      expect(text(await client.callTool({ name: 'add_note', arguments: { title: 'Ship it', priority: 3, topic: 'deploy' } }))).toBe('Added note 1: Ship it (priority 3)');
      const invalid = await client.callTool({ name: 'add_note', arguments: { title: '', priority: 9 } });
      expect(invalid.isError).toBe(true);
      expect(text(invalid)).toBe('Invalid arguments for tool "add_note":\n- "title": must NOT have fewer than 1 characters\n- "priority": must be <= 5');
      const read = await client.readResource({ uri: 'notes://1' });
      expect(JSON.parse((read.contents[0] as { text: string }).text)).toMatchObject({ id: 1, title: 'Ship it' });
      const prompt = await client.getPrompt({ name: 'summarize', arguments: { topic: 'deploy' } });
      expect((prompt.messages[0].content as { text: string }).text).toBe('Summarize these notes about deploy:\n- Ship it');
      const completed = await client.complete({ ref: { type: 'ref/prompt', name: 'summarize' }, argument: { name: 'topic', value: 'd' } });
      expect(completed.completion.values).toEqual(['deploy', 'decorators', 'durable-objects', 'deno']);
      const elicited = await client.callTool({ name: 'clear_notes', arguments: {} }).then(
        (result) => text(result),
        (error: Error) => error.message,
      );
      expect(elicited).toContain('without sessions (stateless HTTP), so a request cannot ask the client to fill in a form (elicitation)');
    });
  }, 120_000);
});

/**
 * workerd with `nodejs_compat` would run Node's modules, Buffer and setImmediate, so the rule
 * that the Worker's bundle needs none of them is checked on what esbuild put in it, not observed.
 */
describe('the bundle for workers', () => {
  const USES = /\bBuffer\b|\bsetImmediate\b|\bprocess\.[a-zA-Z]/g;
  /** Third-party modules that name Buffer only behind a check that it exists. */
  const GUARDED: Record<string, string> = {
    'class-transformer/esm5/TransformOperationExecutor.js': 'getGlobal().Buffer is checked first',
    'yaml/browser/dist/schema/yaml-1.1/binary.js': 'typeof Buffer is checked first, else atob/btoa',
  };
  const codeOf = (file: string) => fs.readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');

  it("imports no module of Node's and uses no Buffer, setImmediate or process anywhere reachable from its fetch", () => {
    const metafile = JSON.parse(fs.readFileSync(path.join(example, 'dist', 'bundle', 'workers', 'worker.mjs.meta.json'), 'utf8')) as {
      inputs: Record<string, { imports: Array<{ path: string; external?: boolean }> }>;
    };
    const inputs = Object.entries(metafile.inputs);
    const nodeImports = inputs.flatMap(([file, input]) => input.imports.filter((i) => i.path.startsWith('node:') || (i.external && i.path !== '<runtime>')).map((i) => `${file} → ${i.path}`));
    expect(nodeImports).toEqual([]);
    const own = inputs.map(([file]) => file).filter((file) => !file.includes('node_modules') && fs.existsSync(path.resolve(example, file)));
    // The framework's own modules are in it (the check reads what it should).
    expect(own.some((file) => file.includes('packages/core/dist/server/ServerRuntime.js'))).toBe(true);
    expect(own.some((file) => file.includes('packages/core/dist/server/listen.js') || file.includes('packages/core/dist/transports/StdioTransport.js'))).toBe(false);
    // Every validator is precompiled: ajv's compiler is not in it, only its small runtime helpers.
    expect(inputs.map(([file]) => file).filter((file) => /node_modules\/ajv\/dist\/(compile|core|2020)/.test(file))).toEqual([]);
    expect(own.flatMap((file) => (codeOf(path.resolve(example, file)).match(USES) ?? []).map((use) => `${file}: ${use}`))).toEqual([]);
    const thirdParty = inputs
      .map(([file]) => file)
      .filter((file) => file.includes('node_modules') && !Object.keys(GUARDED).some((guarded) => file.endsWith(guarded)))
      .flatMap((file) => (codeOf(path.resolve(example, file)).match(USES) ?? []).map((use) => `${file}: ${use}`));
    expect(thirdParty).toEqual([]);
  });
});
