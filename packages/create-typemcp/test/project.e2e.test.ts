/**
 * The path a new user takes, for real: every package is packed with `npm pack`, a project is
 * scaffolded outside the repository by the packed create-typemcp, the packed tarballs (and
 * nothing of @typemcp/* from a registry) are installed there, and the project builds, passes
 * its own tests and serves the official SDK client over stdio — as CommonJS and as an ES
 * module, compiled by tsc, run by tsx, and run by `typemcp dev`. A project made with
 * --sign-in passes its own tests (a whole sign-in over HTTP among them) and serves HTTP
 * behind sign-in from its build and its production bundle. A project made with --no-examples
 * (one hello tool) builds, passes its own tests and serves the SDK client over stdio.
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { createServer as createTcpServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { outsideEnv } from '../../../test-support/outsideRepository';
import { ownedTempDir } from '../../../test-support/ownedTempDir';
import { installFromTarballs, packPackages } from '../../../test-support/packedPackages';
import type { Tarball } from '../../../test-support/packedPackages';
import { connectSdkClient } from '../../../test-support/sdkClient';
import { expectValidServerMessages } from '../../../test-support/specSchema';

jest.setTimeout(240_000);

const repoRoot = path.resolve(__dirname, '..', '..', '..');
const PACKAGES = ['core', 'testing', 'cli', 'create-typemcp'] as const;
type PackageDir = (typeof PACKAGES)[number];
const PROTOCOL = '2025-11-25';

let workDir: string;
let projectDir: string;
let tarballs: Record<PackageDir, Tarball>;

function run(command: string, args: string[], cwd: string): string {
  const result = spawnSync(command, args, { cwd, env: outsideEnv(), encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} (in ${cwd}) exited with ${result.status ?? result.signal}\n${result.stdout}\n${result.stderr}`);
  }
  return `${result.stdout}${result.stderr}`;
}

/** Connects the official SDK client to `command args` started as a stdio server in `cwd`. */
async function connectOverStdio(command: string, args: string[], cwd: string) {
  const transport = new StdioClientTransport({ command, args, cwd, env: outsideEnv() as Record<string, string>, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return connectSdkClient(transport, { protocolVersion: PROTOCOL }).catch((error: Error) => {
    throw new Error(`${error.message}\nserver stderr:\n${stderr}`);
  });
}

/** Starts `command args` in the project as a stdio server and has the official SDK client use it. */
async function exerciseOverStdio(command: string, args: string[]): Promise<void> {
  const { client, recorder } = await connectOverStdio(command, args, projectDir);
  try {
    expect(client.getServerVersion()).toMatchObject({ name: 'my-server' });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['add_note', 'read_note']);
    expect(tools[0].inputSchema).toMatchObject({ type: 'object', required: ['title', 'body'] });

    const added = await client.callTool({ name: 'add_note', arguments: { title: 'From the SDK', body: 'over stdio' } });
    expect(added.content).toEqual([{ type: 'text', text: 'Saved note 2: From the SDK' }]);
    const invalid = await client.callTool({ name: 'add_note', arguments: { title: 5 } });
    expect(invalid.isError).toBe(true);

    const read = await client.readResource({ uri: 'notes://notes/2' });
    expect(read.contents[0]).toMatchObject({ uri: 'notes://notes/2', text: expect.stringContaining('over stdio') });
    const prompt = await client.getPrompt({ name: 'summarize', arguments: { id: '1' } });
    expect(JSON.stringify(prompt.messages)).toContain('# Welcome');
    const completion = await client.complete({ ref: { type: 'ref/resource', uri: 'notes://notes/{id}' }, argument: { name: 'id', value: '2' } });
    expect(completion.completion.values).toEqual(['2']);
  } finally {
    await client.close();
  }
  expectValidServerMessages(PROTOCOL, recorder.received);
}

beforeAll(() => {
  // Owned by this run: removed if it is interrupted, and swept by the next run if it was killed.
  workDir = ownedTempDir('typemcp-e2e-');
  const packDir = path.join(workDir, 'tarballs');
  fs.mkdirSync(packDir);
  tarballs = packPackages(PACKAGES, packDir);
});

afterAll(() => {
  if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
});

describe('the packed packages', () => {
  it.each(PACKAGES)('%s ships its build, README, LICENSE and no tests', (dir) => {
    const { files } = tarballs[dir];
    expect(files).toEqual(expect.arrayContaining(['package.json', 'README.md', 'LICENSE', dir === 'create-typemcp' ? 'dist/bin.js' : 'dist/index.js']));
    expect(files.filter((f) => /(^|\/)test\/|\.test\.[jt]s$/.test(f) && !/^template(-runtimes|-signin|-minimal)?\//.test(f))).toEqual([]);
    expect(files.filter((f) => f.endsWith('.tsbuildinfo'))).toEqual([]);
    if (dir !== 'create-typemcp') expect(files).toContain('dist/index.d.ts');
  });

  it('create-typemcp carries the template, without build output', () => {
    const template = tarballs['create-typemcp'].files.filter((f) => f.startsWith('template/'));
    expect(template).toEqual(expect.arrayContaining(['template/package.json', 'template/gitignore', 'template/src/main.ts', 'template/test/server.test.ts']));
    expect(template.filter((f) => /node_modules|\/dist\//.test(f))).toEqual([]);
    expect(tarballs['create-typemcp'].files).toEqual(expect.arrayContaining(['bun', 'deno', 'workers'].map((runtime) => `template-runtimes/${runtime}/overlay.json`)));
    expect(tarballs['create-typemcp'].files).toEqual(expect.arrayContaining(['template-signin/overlay.json', 'template-signin/src/server.ts', 'template-signin/test/signin.test.ts']));
    expect(tarballs['create-typemcp'].files).toEqual(expect.arrayContaining(['template-minimal/default/overlay.json', 'template-minimal/default/src/hello/HelloTools.ts', 'template-minimal/signin/overlay.json', ...['bun', 'deno', 'workers'].map((runtime) => `template-minimal/runtimes/${runtime}/overlay.json`)]));
  });
});

describe('a project scaffolded by the packed create-typemcp', () => {
  beforeAll(() => {
    run('npm', ['exec', '--yes', `--package=${tarballs['create-typemcp'].file}`, '--', 'create-typemcp', 'my-server'], workDir);
    projectDir = path.join(workDir, 'my-server');

    // The packed tarballs stand in for the registry.
    installFromTarballs(projectDir, tarballs);
    // tsx is not part of the template; users who prefer it install it themselves.
    run('npm', ['install', '--prefer-offline', '--no-save', 'tsx@4'], projectDir);
  });

  it('installed @typemcp/* from the tarballs only', () => {
    const lock = JSON.parse(fs.readFileSync(path.join(projectDir, 'package-lock.json'), 'utf8')) as { packages: Record<string, { resolved?: string }> };
    const typemcp = Object.entries(lock.packages).filter(([location]) => location.includes('node_modules/@typemcp/'));
    expect(typemcp.map(([location]) => location).sort()).toEqual(['node_modules/@typemcp/cli', 'node_modules/@typemcp/client', 'node_modules/@typemcp/core', 'node_modules/@typemcp/testing']);
    for (const [, entry] of typemcp) expect(entry.resolved).toMatch(/^file:/);
    expect(fs.readFileSync(path.join(projectDir, '.gitignore'), 'utf8')).toContain('node_modules/');
  });

  describe.each(['commonjs', 'module'] as const)('as a %s package', (moduleType) => {
    beforeAll(() => {
      const manifestPath = path.join(projectDir, 'package.json');
      const manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8'));
      manifest.type = moduleType;
      fs.writeFileSync(manifestPath, JSON.stringify(manifest, null, 2));
      fs.rmSync(path.join(projectDir, 'dist'), { recursive: true, force: true });
    });

    it('builds with tsc and passes its own tests', () => {
      run('npm', ['run', 'build'], projectDir);
      // The entry is the package's bin: its shebang comes first, then the module's own code.
      const [shebang, firstLine] = fs.readFileSync(path.join(projectDir, 'dist', 'main.js'), 'utf8').split('\n');
      expect(shebang).toBe('#!/usr/bin/env node');
      expect(firstLine.includes('"use strict"')).toBe(moduleType === 'commonjs');
      const output = run('npm', ['test'], projectDir);
      expect(output).toMatch(/Tests: +\d+ passed, \d+ total/);
      expect(output).not.toMatch(/failed|skipped/);
    });

    it('serves the official SDK client over stdio from the build', () => exerciseOverStdio(process.execPath, ['dist/main.js', '--stdio']));

    it('serves the official SDK client under tsx', () => exerciseOverStdio(path.join(projectDir, 'node_modules', '.bin', 'tsx'), ['src/main.ts', '--stdio']));

    it('serves the official SDK client under typemcp dev', () =>
      exerciseOverStdio(path.join(projectDir, 'node_modules', '.bin', 'typemcp'), ['dev', 'src/main.ts', '--stdio', '--no-watch']));

    it('serves the official SDK client from its production build: the bundle, and the startup snapshot with the framework from the installed packages', async () => {
      run('npm', ['run', 'bundle'], projectDir);
      await exerciseOverStdio(process.execPath, [moduleType === 'module' ? 'dist/bundle/server.mjs' : 'dist/bundle/server.js', '--stdio']);
      await exerciseOverStdio(process.execPath, ['--snapshot-blob', 'dist/bundle/server.blob', '--', '--stdio']);
    });
  });
});


/** A port free on 127.0.0.1 now: the sign-in server names its port in the tokens' audience, so it cannot take port 0. */
async function freePort(): Promise<number> {
  const probe = createTcpServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/**
 * Starts `node args` in the project as its HTTP server and, once it says it serves, checks what
 * a client meets first: the 401 naming the scope and the sign-in metadata. Its stderr.
 */
async function checkSignInOverHttp(projectDir: string, args: string[]): Promise<string> {
  const port = await freePort();
  const child = spawn(process.execPath, args, { cwd: projectDir, env: { ...outsideEnv(), PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no "serving MCP" within 20 s:\n${stderr}`)), 20_000);
      child.stderr!.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        if (stderr.includes('serving MCP')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', (code) => reject(new Error(`exited with ${code}:\n${stderr}`)));
    });
    const origin = `http://127.0.0.1:${port}`;
    const refused = await fetch(`${origin}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp", scope="notes:read"`);
    const metadata = await (await fetch(`${origin}/.well-known/oauth-authorization-server`)).json();
    expect(metadata).toMatchObject({ issuer: origin, registration_endpoint: `${origin}/oauth/register`, code_challenge_methods_supported: ['S256'] });
    const login = await fetch(`${origin}/oauth/authorize?response_type=code`, { redirect: 'manual' });
    expect(login.status).toBeGreaterThanOrEqual(400); // an incomplete request: refused on a page, never redirected
    return stderr;
  } finally {
    child.kill('SIGTERM');
  }
}

describe('a project scaffolded by the packed create-typemcp with --sign-in', () => {
  let signInDir: string;

  beforeAll(() => {
    run('npm', ['exec', '--yes', `--package=${tarballs['create-typemcp'].file}`, '--', 'create-typemcp', 'my-signin-server', '--sign-in'], workDir);
    signInDir = path.join(workDir, 'my-signin-server');
    // Packed here, not with the others: only this project needs it.
    const { auth } = packPackages(['auth'], path.join(workDir, 'tarballs'));
    expect(auth.files).toEqual(expect.arrayContaining(['package.json', 'README.md', 'LICENSE', 'dist/index.js', 'dist/index.d.ts']));
    installFromTarballs(signInDir, { ...tarballs, auth });
  });

  it('installed @typemcp/auth from its tarball', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(signInDir, 'package.json'), 'utf8'));
    expect(manifest.dependencies['@typemcp/auth']).toMatch(/^file:/);
    const lock = JSON.parse(fs.readFileSync(path.join(signInDir, 'package-lock.json'), 'utf8')) as { packages: Record<string, { resolved?: string }> };
    expect(lock.packages['node_modules/@typemcp/auth'].resolved).toMatch(/^file:/);
  });

  it('builds with tsc and passes its own tests, a whole sign-in over HTTP among them', () => {
    run('npm', ['run', 'build'], signInDir);
    const output = run('npm', ['test', '--', '--verbose'], signInDir);
    expect(output).toContain('a client registers, the user signs in and approves, and the token calls the tools');
    expect(output).toMatch(/Tests: +\d+ passed, \d+ total/);
    expect(output).not.toMatch(/failed|skipped/);
  });

  it('serves HTTP behind sign-in from the build, warning that SIGNIN_SECRET is not set', async () => {
    const stderr = await checkSignInOverHttp(signInDir, ['dist/main.js']);
    expect(stderr).toContain('SIGNIN_SECRET is not set');
    expect(stderr).toContain('sign in as alice (password alice) or bob (password bob)');
  });

  it('lists its tools over stdio for npm run inspect, where the local user has every scope', () => {
    const output = run('npm', ['run', 'inspect'], signInDir);
    expect(output).toContain('add_note');
    expect(output).toContain('read_note');
  });

  it('serves HTTP behind sign-in from its production bundle and startup snapshot', async () => {
    run('npm', ['run', 'bundle'], signInDir);
    await checkSignInOverHttp(signInDir, ['dist/bundle/server.js']);
    await checkSignInOverHttp(signInDir, ['--snapshot-blob', 'dist/bundle/server.blob']);
  });
});

describe('a project scaffolded by the packed create-typemcp with --no-examples', () => {
  let minimalDir: string;

  beforeAll(() => {
    run('npm', ['exec', '--yes', `--package=${tarballs['create-typemcp'].file}`, '--', 'create-typemcp', 'my-hello-server', '--no-examples'], workDir);
    minimalDir = path.join(workDir, 'my-hello-server');
    installFromTarballs(minimalDir, tarballs);
  });

  it('builds with tsc and passes its own tests', () => {
    expect(fs.existsSync(path.join(minimalDir, 'src', 'notes'))).toBe(false);
    run('npm', ['run', 'build'], minimalDir);
    const output = run('npm', ['test', '--', '--verbose'], minimalDir);
    expect(output).toContain('says hello');
    expect(output).toMatch(/Tests: +5 passed, 5 total/);
    expect(output).not.toMatch(/failed|skipped/);
  });

  it('serves its hello tool to the official SDK client over stdio from the build', async () => {
    const { client, recorder } = await connectOverStdio(process.execPath, ['dist/main.js', '--stdio'], minimalDir);
    try {
      expect(client.getServerVersion()).toMatchObject({ name: 'my-hello-server' });
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['hello']);
      expect((await client.callTool({ name: 'hello', arguments: { name: 'SDK' } })).content).toEqual([{ type: 'text', text: 'Hello, SDK!' }]);
      expect((await client.callTool({ name: 'hello', arguments: { name: 5 } })).isError).toBe(true);
    } finally {
      await client.close();
    }
    expectValidServerMessages(PROTOCOL, recorder.received);
  });
});
