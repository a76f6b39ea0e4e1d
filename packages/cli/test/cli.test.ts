import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import net from 'node:net';
import { REPLAY_PREFIX } from '../src/commands/stdioSession';
import { buildCli, copyFixture, fixtures, LineClient, repoRoot, runCli } from './support';

jest.setTimeout(60_000);
beforeAll(buildCli);

const cjsServer = path.join(fixtures, 'cjs', 'server.ts');
const toolNames = (message: Record<string, unknown>) => ((message.result as { tools: Array<{ name: string }> }).tools ?? []).map((t) => t.name);

describe('the typemcp command', () => {
  it('prints its help on stdout and exits with 0', () => {
    expect(runCli(['--help'])).toMatchObject({ status: 0, stdout: expect.stringContaining('Usage: typemcp <command>'), stderr: '' });
  });

  it('exits with 2 on a usage error, explained on stderr', () => {
    expect(runCli(['inspect', '--colour'])).toMatchObject({ status: 2, stdout: '', stderr: expect.stringContaining('unknown option --colour for typemcp inspect') });
  });
});

describe('typemcp inspect', () => {
  it('lists what a TypeScript server offers, as a table', () => {
    const result = runCli(['inspect', cjsServer]);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('greeter 1.0.0 (protocol 2025-11-25)');
    expect(result.stdout).toMatch(/Tools \(2\)\n {2}hello +Says hello\n +input: \{ name: string \}\n +annotations: \{"readOnlyHint":true\}/);
    expect(result.stdout).toMatch(/Resources \(1\)\n {2}greeter:\/\/motd +motd: Message of the day\n +text\/plain/);
    expect(result.stdout).toMatch(/Prompts \(1\)\n {2}welcome +A greeting prompt\n +argument name: Who to greet/);
  });

  it('prints JSON with the full schemas', () => {
    const result = runCli(['inspect', cjsServer, '--json']);
    expect(result.status).toBe(0);
    const inventory = JSON.parse(result.stdout);
    expect(inventory.serverInfo).toEqual({ name: 'greeter', version: '1.0.0' });
    expect(inventory.tools[0]).toMatchObject({ name: 'hello', inputSchema: { type: 'object', properties: { name: { type: 'string', description: 'Who to greet' } }, required: ['name'] } });
    expect(inventory.resourceTemplates).toEqual([]);
    expect(inventory.prompts.map((p: { name: string }) => p.name)).toEqual(['welcome']);
  });

  it('speaks 2026-07-28 with --protocol', () => {
    const inspected = runCli(['inspect', cjsServer, '--protocol', '2026-07-28']);
    expect(inspected.status).toBe(0);
    expect(inspected.stdout).toContain('greeter 1.0.0 (protocol 2026-07-28)');
    const called = runCli(['call', 'hello', cjsServer, '--args', '{"name":"Ada"}', '--protocol', '2026-07-28', '--json']);
    expect(called.status).toBe(0);
    expect(JSON.parse(called.stdout)).toMatchObject({ resultType: 'complete', _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'greeter' } } });
  });

  it('lists the skills of a server that serves them', () => {
    const result = runCli(['inspect', path.join(__dirname, '..', '..', '..', 'examples', '05-skills', 'src', 'main.ts')]);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/Skills \(6\)\n {2}skill:\/\/acme\/billing\/refunds\/SKILL\.md +Process customer refund requests/);
    expect(result.stdout).toMatch(/skill:\/\/pdf-processing\/SKILL\.md +Extract text and tables[^\n]*\n +files: 6, \d+ bytes/);
    expect(result.stdout).toMatch(/skill:\/\/team\/on-call\/SKILL\.md +Find who is on call[^\n]*\n +files: dynamic/);
    const json = JSON.parse(runCli(['inspect', path.join(__dirname, '..', '..', '..', 'examples', '05-skills', 'src', 'main.ts'), '--json']).stdout);
    expect(json.skills.map((s: { frontmatter: { name: string } }) => s.frontmatter.name)).toEqual(['refunds', 'partial-refunds', 'git-workflow', 'pdf-processing', 'release-checklist', 'on-call']);
    expect(runCli(['inspect', cjsServer, '--json']).stdout).not.toContain('"skills"');
  });

  it("compiles a TypeScript entry as the project's tsconfig.json says", () => {
    const dir = copyFixture('cjs');
    // No experimentalDecorators: standard decorators, as tsc would compile them, which TypeMCP refuses with the fix.
    fs.writeFileSync(path.join(dir, 'tsconfig.json'), '{\n  // standard decorators\n  "compilerOptions": { "target": "ES2022", "strict": true, },\n}\n');
    const refused = runCli(['inspect', path.join(dir, 'server.ts')]);
    fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { experimentalDecorators: true, emitDecoratorMetadata: true } }));
    const accepted = runCli(['inspect', path.join(dir, 'server.ts')]);
    fs.rmSync(dir, { recursive: true, force: true });
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('set "experimentalDecorators": true and "emitDecoratorMetadata": true in tsconfig.json');
    expect(accepted.status).toBe(0);
  });

  it('reports a server that dies at start-up', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'typemcp-cli-broken-'));
    fs.writeFileSync(path.join(dir, 'main.js'), "process.stderr.write('cannot start: no database\\n'); process.exit(3);\n");
    const result = runCli(['inspect', path.join(dir, 'main.js')]);
    fs.rmSync(dir, { recursive: true, force: true });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('the server exited (code 3) before answering');
    expect(result.stderr).toContain('cannot start: no database');
  });
});

describe('typemcp call', () => {
  it('prints the text of the result', () => {
    expect(runCli(['call', 'hello', '--entry', cjsServer, '--args', '{"name":"Ada"}'])).toMatchObject({ status: 0, stdout: 'Hello, Ada!\n' });
  });

  it('prints the whole result with --json', () => {
    const result = runCli(['call', 'hello', cjsServer, '--args', '{"name":"Ada"}', '--json']);
    expect(JSON.parse(result.stdout)).toEqual({ content: [{ type: 'text', text: 'Hello, Ada!' }] });
  });

  it('exits with 1 on an error result, invalid arguments or an unknown tool', () => {
    expect(runCli(['call', 'fail', cjsServer])).toMatchObject({ status: 1, stdout: 'failed on purpose\n', stderr: expect.stringContaining('fail returned an error result') });
    expect(runCli(['call', 'hello', cjsServer, '--args', '{}'])).toMatchObject({ status: 1, stdout: expect.stringContaining('missing required property "name"') });
    expect(runCli(['call', 'nope', cjsServer])).toMatchObject({ status: 1, stderr: expect.stringContaining('tools/call failed with -32602: Unknown tool: nope') });
  });
});

describe('typemcp dev', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

  it('with --no-watch and no client left, shows why a server failed to start and exits non-zero', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'typemcp-dev-broken-'));
    dirs.push(dir);
    // Fails a moment after it started, as a server whose setup throws does.
    fs.writeFileSync(path.join(dir, 'main.ts'), "setTimeout(() => { throw new Error('cannot start: the store is unreachable'); }, 300);\n");
    const result = runCli(['dev', path.join(dir, 'main.ts'), '--stdio', '--no-watch']);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('cannot start: the store is unreachable');
    expect(result.stderr).toContain('[typemcp dev] server exited (exit code 1)');
  });

  it('serves over stdio and keeps the session across a restart', async () => {
    const dir = copyFixture('cjs');
    dirs.push(dir);
    const client = LineClient.spawn(['dev', 'server.ts', '--stdio'], dir);
    await client.initialize();
    expect(toolNames(await client.request(1, 'tools/list'))).toEqual(['hello', 'fail']);

    const source = path.join(dir, 'server.ts');
    fs.writeFileSync(source, fs.readFileSync(source, 'utf8').replace("description: 'Always fails'", "name: 'fail_again', description: 'Always fails'"));
    await client.waitFor((m) => m.method === 'notifications/tools/list_changed');
    expect(toolNames(await client.request(2, 'tools/list'))).toEqual(['hello', 'fail_again']);
    const call = await client.request(3, 'tools/call', { name: 'hello', arguments: { name: 'again' } });
    expect(call.result).toEqual({ content: [{ type: 'text', text: 'Hello, again!' }] });
    expect(client.stderr).toContain('[typemcp dev] change detected, restarting');
    // The replayed handshake is the dev command's business: the client never sees its answer.
    expect(client.received.filter((m) => String(m.id).startsWith(REPLAY_PREFIX))).toEqual([]);

    // A broken edit: the server exits, requests get an answer that says so; the fix brings it back.
    const working = fs.readFileSync(source, 'utf8');
    fs.writeFileSync(source, `${working}\nconst = ;\n`);
    for (let i = 0; i < 200 && !client.stderr.includes('server exited (exit code 1); waiting for a change'); i++) await new Promise((r) => setTimeout(r, 50));
    expect((await client.request(4, 'tools/list')).error).toEqual({ code: -32603, message: 'The server is not running (exit code 1); save a change to restart it' });
    fs.writeFileSync(source, working);
    await client.waitFor((m) => m.method === 'notifications/tools/list_changed', { fresh: true });
    expect(toolNames(await client.request(5, 'tools/list'))).toEqual(['hello', 'fail_again']);
    expect(await client.stop()).toBe(0);
  });

  it('serves over HTTP and restarts on the same port', async () => {
    const dir = copyFixture('cjs');
    dirs.push(dir);
    const port = await freePort();
    const child = spawn(process.execPath, [path.join(repoRoot, 'packages', 'cli', 'dist', 'bin.js'), 'dev', 'server.ts', '--http', '--port', String(port)], { cwd: dir, env: { ...process.env, NO_COLOR: '1' } });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const waitForStderr = async (text: string, count: number) => {
      for (let i = 0; i < 300 && stderr.split(text).length - 1 < count; i++) await new Promise((r) => setTimeout(r, 50));
      expect(stderr.split(text).length - 1).toBeGreaterThanOrEqual(count);
    };
    const initialize = () =>
      fetch(`http://127.0.0.1:${port}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
      });
    try {
      await waitForStderr(`listening at http://127.0.0.1:${port}/mcp`, 1);
      expect((await initialize()).status).toBe(200);
      fs.appendFileSync(path.join(dir, 'greeting.ts'), '\n// changed\n');
      await waitForStderr(`listening at http://127.0.0.1:${port}/mcp`, 2);
      expect(stderr).toContain('[typemcp dev] change detected, restarting');
      expect((await initialize()).status).toBe(200);
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
  });

  it('runs an ES module project', async () => {
    const dir = copyFixture('esm');
    dirs.push(dir);
    const client = LineClient.spawn(['dev', 'server.ts', '--no-watch'], dir);
    await client.initialize();
    const call = await client.request(1, 'tools/call', { name: 'shout', arguments: { text: 'quiet' } });
    expect(call.result).toEqual({ content: [{ type: 'text', text: 'QUIET' }] });
    expect(await client.stop()).toBe(0);
  });
});

/** The test's environment without NODE_OPTIONS: a blob runs under the V8 flags it was built with. */
function withoutNodeOptions(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  return env;
}

/** A fixture as a project: sources in src/, compiled by its tsconfig.json into dist/. */
function sourceProject(fixture: 'cjs' | 'esm' = 'cjs'): string {
  const project = copyFixture(fixture);
  fs.mkdirSync(path.join(project, 'src'));
  for (const file of fs.readdirSync(project).filter((name) => name.endsWith('.ts'))) fs.renameSync(path.join(project, file), path.join(project, 'src', file));
  fs.writeFileSync(
    path.join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', types: ['node'], strict: true, experimentalDecorators: true, emitDecoratorMetadata: true, skipLibCheck: true, rootDir: 'src', outDir: 'dist' },
      include: ['src'],
    }),
  );
  return project;
}

describe('typemcp build', () => {
  it('bundles the compiled server into one file that runs on its own', async () => {
    const project = sourceProject();
    const built = runCli(['build', 'dist/server.js', '--minify'], project);
    expect(built.stderr).toMatch(/^compiled \d+ validators?\nbuilt dist\/bundle\/server\.js [\d.]+ (KiB|MiB) in \d+ ms\n$/);
    expect(built.status).toBe(0);

    const alone = fs.mkdtempSync(path.join(os.tmpdir(), 'typemcp-bundle-'));
    fs.copyFileSync(path.join(project, 'dist', 'bundle', 'server.js'), path.join(alone, 'server.js'));
    fs.rmSync(project, { recursive: true, force: true });
    const client = new LineClient(spawn(process.execPath, [path.join(alone, 'server.js'), '--stdio'], { cwd: alone }));
    try {
      await client.initialize();
      const call = await client.request(1, 'tools/call', { name: 'hello', arguments: { name: 'bundle' } });
      expect(call.result).toEqual({ content: [{ type: 'text', text: 'Hello, bundle!' }] });
      const invalid = await client.request(2, 'tools/call', { name: 'hello', arguments: {} });
      expect(invalid.result).toMatchObject({ isError: true });
    } finally {
      await client.stop();
      fs.rmSync(alone, { recursive: true, force: true });
    }
  });

  it('builds a startup snapshot whose process runs the application at start, with its own argv, folder, require, environment, child processes and randomness', async () => {
    const project = sourceProject();
    fs.writeFileSync(
      path.join(project, 'src', 'where.ts'),
      [
        "import { randomUUID } from 'node:crypto';",
        "import { execFileSync } from 'node:child_process';",
        "import { Tool } from '@typemcp/core';",
        '// Read when the module is evaluated: at start-up, not when the snapshot was built.',
        'const markerAtLoad = process.env.SNAPSHOT_MARKER;',
        'export class Where {',
        "  @Tool({ description: 'What this process sees' })",
        '  where(): string {',
        "    // A computed require of a file beside the blob: a real require, not the snapshot builder's.",
        "    const beside = require(['.', 'beside.json'].join('/'));",
        "    // A child started with this process's execArgv, as fork() starts one, runs its own script.",
        "    const child = execFileSync(process.execPath, [...process.execArgv, '-p', '6 * 7'], { encoding: 'utf8', timeout: 5000 }).trim();",
        '    return JSON.stringify({ script: process.argv[1], file: __filename, args: process.argv.slice(2), dir: __dirname, markerAtLoad, beside, child, execArgv: process.execArgv, id: randomUUID() });',
        '  }',
        '}',
        '',
      ].join('\n'),
    );
    const server = fs.readFileSync(path.join(project, 'src', 'server.ts'), 'utf8');
    fs.writeFileSync(
      path.join(project, 'src', 'server.ts'),
      server.replace("import { greeting } from './greeting.js';", "import { greeting } from './greeting.js';\nimport { Where } from './where.js';").replace('providers: [Greeter]', 'providers: [Greeter, Where]'),
    );
    // V8 flags in NODE_OPTIONS would be baked into the blob, which then loads only under them.
    const built = runCli(['build', 'dist/server.js', '--snapshot', '--outfile', 'dist/bundle/app.cjs'], project, { NODE_OPTIONS: '--max-old-space-size=300' });
    expect(built.stderr).toMatch(/^compiled \d+ validators?\nbuilt dist\/bundle\/app\.cjs .*\nbuilt dist\/bundle\/app\.blob [\d.]+ MiB in \d+ ms\nrun it with this Node\.js \(v[\d.]+\): node --snapshot-blob dist\/bundle\/app\.blob -- \[arguments\]\n$/);
    expect(built.status).toBe(0);

    // The blob moves to another folder; the project and its node_modules are gone.
    const alone = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'typemcp-snapshot-')));
    fs.copyFileSync(path.join(project, 'dist', 'bundle', 'app.blob'), path.join(alone, 'app.blob'));
    fs.writeFileSync(path.join(alone, 'beside.json'), '{"found":true}');
    fs.rmSync(project, { recursive: true, force: true });
    const start = () =>
      new LineClient(
        spawn(process.execPath, ['--snapshot-blob', 'app.blob', '--', '--stdio', 'extra'], { cwd: alone, env: { ...withoutNodeOptions(), SNAPSHOT_MARKER: 'at start' } }),
      );
    const seen: Array<Record<string, unknown>> = [];
    try {
      for (let run = 0; run < 2; run++) {
        const client = start();
        try {
          await client.initialize();
          const call = await client.request(1, 'tools/call', { name: 'hello', arguments: { name: 'snapshot' } });
          expect(call.result).toEqual({ content: [{ type: 'text', text: 'Hello, snapshot!' }] });
          const invalid = await client.request(2, 'tools/call', { name: 'hello', arguments: { name: 7 } });
          expect(invalid.result).toMatchObject({ isError: true, content: [{ type: 'text', text: expect.stringContaining('"name": must be string') }] });
          const where = (await client.request(3, 'tools/call', { name: 'where', arguments: {} })).result as { content: Array<{ text: string }> };
          seen.push(JSON.parse(where.content[0]!.text));
        } finally {
          await client.stop();
        }
      }
    } finally {
      fs.rmSync(alone, { recursive: true, force: true });
    }
    for (const process of seen) {
      expect(process).toMatchObject({ script: path.join(alone, 'app.cjs'), file: path.join(alone, 'app.cjs'), args: ['--stdio', 'extra'], dir: alone, markerAtLoad: 'at start', beside: { found: true }, child: '42', execArgv: [] });
    }
    expect(seen[0]!.id).not.toBe(seen[1]!.id);
  });

  it('reports a snapshot node cannot build, and leaves no blob of an earlier build', () => {
    const project = sourceProject();
    // tsyringe without a Reflect polyfill throws when it loads, as the snapshot loads it.
    fs.writeFileSync(path.join(project, 'src', 'server.ts'), "import { container } from 'tsyringe';\nexport const ready = typeof container;\n");
    const blob = path.join(project, 'dist', 'bundle', 'server.blob');
    fs.mkdirSync(path.dirname(blob), { recursive: true });
    fs.writeFileSync(blob, 'a blob of an earlier build');
    const result = runCli(['build', 'dist/server.js', '--snapshot'], project);
    const leftBlob = fs.existsSync(blob);
    const leftEntry = fs.readdirSync(path.dirname(blob)).filter((file) => file.includes('snapshot-entry'));
    fs.rmSync(project, { recursive: true, force: true });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/^compiled \d+ validators?\nbuilt dist\/bundle\/server\.js [\d.]+ (KiB|MiB) in \d+ ms\n/);
    expect(result.stderr).toContain('tsyringe requires a reflect polyfill');
    expect(result.stderr).toMatch(/node could not build a startup snapshot of this bundle; the bundle itself is built\n$/);
    expect(leftBlob).toBe(false);
    expect(leftEntry).toEqual([]);
  });

  it('bundles an ES module project as an ES module, and refuses a snapshot of its top-level await', async () => {
    const project = sourceProject('esm');
    const built = runCli(['build', 'dist/server.js', '--snapshot'], project);
    expect(built.stderr).toMatch(/^compiled \d+ validators?\nbuilt dist\/bundle\/server\.mjs [\d.]+ (KiB|MiB) in \d+ ms\n/);
    expect(built.stderr).toContain('Top-level await is currently not supported with the "cjs" output format');
    expect(built.stderr).toMatch(/esbuild could not bundle the snapshot entry; the bundle itself is built\n$/);
    expect(built.status).toBe(1);
    expect(fs.existsSync(path.join(project, 'dist', 'bundle', 'server.blob'))).toBe(false);

    // The bundle runs on its own, outside any package: its CommonJS dependencies get a require.
    const alone = fs.mkdtempSync(path.join(os.tmpdir(), 'typemcp-esm-bundle-'));
    fs.copyFileSync(path.join(project, 'dist', 'bundle', 'server.mjs'), path.join(alone, 'server.mjs'));
    fs.rmSync(project, { recursive: true, force: true });
    const client = new LineClient(spawn(process.execPath, [path.join(alone, 'server.mjs')], { cwd: alone }));
    try {
      await client.initialize();
      const call = await client.request(1, 'tools/call', { name: 'shout', arguments: { text: 'bundled' } });
      expect(call.result).toEqual({ content: [{ type: 'text', text: 'BUNDLED' }] });
    } finally {
      await client.stop();
      fs.rmSync(alone, { recursive: true, force: true });
    }
  });

  it('refuses a snapshot of an ES module entry that uses import.meta', () => {
    const project = sourceProject('esm');
    const server = path.join(project, 'src', 'server.ts');
    fs.writeFileSync(server, fs.readFileSync(server, 'utf8').replace(/^await (.*)$/m, 'process.stderr.write(import.meta.url);\nvoid $1'));
    const built = runCli(['build', 'dist/server.js', '--snapshot'], project);
    fs.rmSync(project, { recursive: true, force: true });
    expect(built.stderr).toMatch(/^compiled \d+ validators?\nbuilt dist\/bundle\/server\.mjs /);
    expect(built.stderr).toMatch(/the entry uses import\.meta, which a startup snapshot \(one CommonJS script\) cannot give it; the bundle itself is built\n$/);
    expect(built.status).toBe(1);
  });

  it('stops when tsc reports errors', () => {
    const project = copyFixture('cjs');
    fs.writeFileSync(path.join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, outDir: 'dist', types: [] }, files: ['bad.ts'] }));
    fs.writeFileSync(path.join(project, 'bad.ts'), 'const n: number = "not a number";\n');
    const result = runCli(['build'], project);
    fs.rmSync(project, { recursive: true, force: true });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/bad\.ts\(1,7\): error TS2322: Type 'string' is not assignable to type 'number'\.\n.*tsc reported errors; no bundle was made/);
    expect(result.stdout).toBe('');
  });
});

/** A port nothing listens on right now (the OS picks it), for a server that must keep its port across restarts. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });
}
