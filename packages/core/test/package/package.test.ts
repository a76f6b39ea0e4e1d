/**
 * @typemcp/core as users get it: `npm pack` (its prepack builds it), the tarball's contents,
 * and an install outside the repository with the lowest peer versions it supports, used from
 * plain JavaScript with no compiler: a CommonJS server over stdio (driven here with
 * newline-delimited JSON-RPC), named imports from an ES module, and a second, nested copy of
 * the package in the same process.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { outsideEnv } from '../../../../test-support/outsideRepository';
import { expectValidServerMessages } from '../../../../test-support/specSchema';
import type { RecordedServerMessage } from '../../../../test-support/specSchema';

jest.setTimeout(60_000);

const coreDir = path.resolve(__dirname, '..', '..');
const fixtures = path.join(__dirname, 'fixtures');
const PROTOCOL = '2025-11-25';
/** The lower bound of each peer dependency range in package.json. */
const LOWEST_PEERS = ['reflect-metadata@0.1.13', 'tsyringe@4.8.0', 'class-validator@0.14.0', 'class-transformer@0.5.1'];

const manifest = JSON.parse(fs.readFileSync(path.join(coreDir, 'package.json'), 'utf8')) as {
  name: string;
  main: string;
  types: string;
  exports: Record<string, unknown>;
  files: string[];
  peerDependencies: Record<string, string>;
};

let workDir: string;
let projectDir: string;
let tarball: string;
let packedFiles: string[];

function run(command: string, args: string[], cwd: string, hint = ''): string {
  const result = spawnSync(command, args, { cwd, env: outsideEnv(), encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) {
    throw new Error(`${hint}${command} ${args.join(' ')} (in ${cwd}) exited with ${result.status ?? result.signal}\n${result.stdout}\n${result.stderr}`);
  }
  return result.stdout;
}

function runJson(file: string): Record<string, unknown> {
  return JSON.parse(run(process.execPath, [file], projectDir).trim()) as Record<string, unknown>;
}

beforeAll(() => {
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'typemcp-core-package-'));
  const packDir = path.join(workDir, 'tarball');
  fs.mkdirSync(packDir);
  const output = run('npm', ['pack', '--json', '--pack-destination', packDir], coreDir);
  const [packed] = JSON.parse(output.slice(output.indexOf('['), output.lastIndexOf(']') + 1)) as Array<{ filename: string; files: Array<{ path: string }> }>;
  tarball = path.join(packDir, path.basename(packed.filename));
  packedFiles = packed.files.map((f) => f.path);

  projectDir = path.join(workDir, 'project');
  fs.mkdirSync(projectDir);
  fs.writeFileSync(path.join(projectDir, 'package.json'), JSON.stringify({ name: 'packed-core-project', private: true, type: 'commonjs' }));
  run(
    'npm',
    ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball, ...LOWEST_PEERS],
    projectDir,
    'Installing the packed @typemcp/core with its lowest peer versions failed; this test needs the npm registry (or a cache holding those versions).\n',
  );

  // A dependency that carries its own copy of @typemcp/core, as npm nests one when versions
  // differ; the peers it needs resolve to the project's, as they would.
  const plugin = path.join(projectDir, 'node_modules', 'notes-plugin');
  fs.mkdirSync(path.join(plugin, 'node_modules', '@typemcp'), { recursive: true });
  fs.writeFileSync(path.join(plugin, 'package.json'), JSON.stringify({ name: 'notes-plugin', version: '1.0.0', main: 'index.js' }));
  fs.copyFileSync(path.join(fixtures, 'plugin.js'), path.join(plugin, 'index.js'));
  fs.cpSync(path.join(projectDir, 'node_modules', '@typemcp', 'core'), path.join(plugin, 'node_modules', '@typemcp', 'core'), { recursive: true });

  for (const file of ['server.js', 'names.mjs', 'copies.js', 'unknown-deps.js']) fs.copyFileSync(path.join(fixtures, file), path.join(projectDir, file));
});

afterAll(() => {
  if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
});

describe('the tarball', () => {
  it('ships the build, its declarations, README, LICENSE and package.json, and no tests', () => {
    expect(packedFiles).toEqual(expect.arrayContaining(['package.json', 'README.md', 'LICENSE', 'dist/index.js', 'dist/index.d.ts', 'dist/index.js.map']));
    expect(packedFiles.filter((f) => /(^|\/)test\/|\.test\.[jt]s$|\.tsbuildinfo$/.test(f))).toEqual([]);
    expect(packedFiles.filter((f) => !/^(dist|src)\//.test(f)).sort()).toEqual(['LICENSE', 'README.md', 'package.json']);
    // Every compiled module has its declarations and source map beside it.
    const modules = packedFiles.filter((f) => f.startsWith('dist/') && f.endsWith('.js'));
    expect(modules.length).toBeGreaterThan(50);
    expect(modules.filter((f) => !packedFiles.includes(f.replace(/\.js$/, '.d.ts')) || !packedFiles.includes(`${f}.map`))).toEqual([]);
  });

  it('has source maps whose sources are in the package', () => {
    const installed = path.join(projectDir, 'node_modules', '@typemcp', 'core');
    const maps = packedFiles.filter((f) => f.endsWith('.js.map'));
    const unresolved = maps.flatMap((map) => {
      const { sources } = JSON.parse(fs.readFileSync(path.join(installed, map), 'utf8')) as { sources: string[] };
      return sources.map((source) => path.resolve(path.dirname(path.join(installed, map)), source)).filter((source) => !fs.existsSync(source));
    });
    expect(maps.length).toBeGreaterThan(50);
    expect(unresolved).toEqual([]);
  });

  it('declares entry points that exist in it, and peer ranges starting at the versions installed here', () => {
    const web = './dist/index.web.js';
    expect(manifest.exports).toEqual({
      '.': { types: './dist/index.d.ts', workerd: web, worker: web, browser: web, default: './dist/index.js' },
      './build': { types: './dist/build/index.d.ts', default: './dist/build/index.js' },
      './package.json': './package.json',
    });
    for (const file of [manifest.main, manifest.types, web, './dist/build/index.js']) expect(packedFiles).toContain(path.normalize(file));
    const lowest = Object.fromEntries(LOWEST_PEERS.map((spec) => [spec.slice(0, spec.lastIndexOf('@')), spec.slice(spec.lastIndexOf('@') + 1)]));
    expect(Object.keys(manifest.peerDependencies).sort()).toEqual(Object.keys(lowest).sort());
    for (const [name, range] of Object.entries(manifest.peerDependencies)) expect(range).toMatch(new RegExp(`^\\^${lowest[name].replace(/\./g, '\\.')}( |$)`));
  });
});

describe('installed with the lowest peer versions', () => {
  it('uses the project\'s copies of the peers, at those versions', () => {
    const version = (dir: string) => (JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version: string }).version;
    expect(LOWEST_PEERS.map((spec) => `${spec.slice(0, spec.lastIndexOf('@'))}@${version(path.join(projectDir, 'node_modules', spec.slice(0, spec.lastIndexOf('@'))))}`)).toEqual(LOWEST_PEERS);
    expect(fs.existsSync(path.join(projectDir, 'node_modules', '@typemcp', 'core', 'node_modules'))).toBe(false);
  });

  it('is imported by name from an ES module, as the same module require() gives', () => {
    expect(runJson('names.mjs')).toEqual({
      McpServer: 'function',
      Tool: 'function',
      ToolError: 'function',
      LATEST_HANDSHAKE_VERSION: PROTOCOL,
      sameAsRequire: true,
    });
  });

  it('refuses, when the server is created, a provider whose constructor types are unknown', () => {
    expect(runJson('unknown-deps.js')).toEqual({
      created: false,
      name: 'DefinitionError',
      code: 'PROVIDER_DEPENDENCIES_UNKNOWN',
      isDefinitionError: true,
      message: expect.stringContaining('NoteTools: constructor parameter(s) #0 cannot be injected: the compiler emitted no decorator metadata'),
    });
  });

  it('shares one metadata store and its error classes with a second, nested copy', () => {
    const result = runJson('copies.js');
    const [own, nested] = result.files as string[];
    expect(own).not.toBe(nested);
    expect(nested).toContain(path.join('notes-plugin', 'node_modules', '@typemcp', 'core'));
    expect(result).toMatchObject({
      distinctClasses: true,
      sharedStore: true,
      toolErrorBtoA: true,
      toolErrorAtoB: true,
      paramsErrorBisMcpErrorA: true,
      toolErrorBisMcpErrorA: false,
    });
  });
});

describe('a plain JavaScript server over stdio', () => {
  let server: StdioSession;

  beforeAll(async () => {
    server = new StdioSession(spawn(process.execPath, ['server.js'], { cwd: projectDir, env: outsideEnv() }));
    const init = await server.request('initialize', { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'package-test', version: '1.0.0' } });
    expect(init.result).toMatchObject({ protocolVersion: PROTOCOL, serverInfo: { name: 'packed-core' }, capabilities: { tools: {} } });
    server.notify('notifications/initialized');
  });

  afterAll(async () => {
    await server?.close();
  });

  it('lists its tools and those of the nested copy, with their schemas', async () => {
    const { result } = await server.request('tools/list', {});
    const tools = (result as { tools: Array<{ name: string; inputSchema: unknown }> }).tools;
    expect(tools.map((t) => t.name).sort()).toEqual(['refuse', 'reject', 'shout', 'time']);
    expect(tools.find((t) => t.name === 'time')?.inputSchema).toMatchObject({ required: ['city'], properties: { city: { type: 'string', description: 'A city' } } });
    expect(tools.find((t) => t.name === 'shout')?.inputSchema).toMatchObject({ properties: { text: { type: 'string', description: 'What to shout' } } });
  });

  it('calls a tool whose provider the project\'s tsyringe container builds', async () => {
    expect((await server.request('tools/call', { name: 'time', arguments: { city: 'Lima' } })).result).toEqual({ content: [{ type: 'text', text: 'Lima: noon' }] });
    const invalid = (await server.request('tools/call', { name: 'time', arguments: { city: 7 } })).result as { isError: boolean; content: Array<{ text: string }> };
    expect(invalid.isError).toBe(true);
    expect(invalid.content[0].text).toContain('city');
  });

  it('serves the tools of the nested copy, and its errors as their own kind', async () => {
    expect((await server.request('tools/call', { name: 'shout', arguments: { text: 'hi' } })).result).toEqual({ content: [{ type: 'text', text: 'HI' }] });
    // A ToolError of the other copy is the model's to see, not an internal error.
    expect((await server.request('tools/call', { name: 'refuse', arguments: {} })).result).toEqual({ content: [{ type: 'text', text: 'the plugin refuses' }], isError: true });
    // An McpError of the other copy answers as that JSON-RPC error.
    expect((await server.request('tools/call', { name: 'reject', arguments: {} })).error).toEqual({ code: -32602, message: 'the plugin rejects these parameters' });
  });

  it('sends only messages the specification allows', () => {
    expectValidServerMessages(PROTOCOL, server.received);
  });
});

type Message = { id?: number; result?: unknown; error?: unknown; method?: string };

/** Newline-delimited JSON-RPC with a server process: requests by id, everything it sent kept. */
class StdioSession {
  readonly received: RecordedServerMessage[] = [];
  private readonly pending = new Map<number, { method: string; resolve: (message: Message) => void }>();
  private nextId = 1;
  private buffer = '';
  private stderr = '';

  constructor(private readonly child: ChildProcessWithoutNullStreams) {
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      this.buffer += chunk;
      let newline: number;
      while ((newline = this.buffer.indexOf('\n')) >= 0) {
        const line = this.buffer.slice(0, newline).trim();
        this.buffer = this.buffer.slice(newline + 1);
        if (line) this.receive(JSON.parse(line) as Message);
      }
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (this.stderr += chunk));
  }

  request(method: string, params: unknown): Promise<Message> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer to ${method} within 10 s; server stderr:\n${this.stderr}`)), 10_000);
      this.pending.set(id, { method, resolve: (message) => (clearTimeout(timer), resolve(message)) });
      this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  }

  notify(method: string): void {
    this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method })}\n`);
  }

  /** Ends stdin, which ends a stdio server; kills it if it does not exit. */
  async close(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill(), 5_000);
    await exited;
    clearTimeout(timer);
  }

  private receive(message: Message): void {
    const waiting = message.method === undefined && message.id !== undefined ? this.pending.get(message.id) : undefined;
    this.received.push({ message, requestMethod: waiting?.method });
    if (!waiting) return;
    this.pending.delete(message.id as number);
    waiting.resolve(message);
  }
}
