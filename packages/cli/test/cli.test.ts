import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import net from 'node:net';
import { createOutput } from '../src/output';
import { describeSchema } from '../src/commands/inspect';
import { buildCli, copyFixture, fixtures, LineClient, repoRoot, runCli } from './support';

jest.setTimeout(60_000);
beforeAll(buildCli);

const cjsServer = path.join(fixtures, 'cjs', 'server.ts');
const toolNames = (message: Record<string, unknown>) => ((message.result as { tools: Array<{ name: string }> }).tools ?? []).map((t) => t.name);

describe('usage', () => {
  it('prints help and the version', () => {
    expect(runCli(['--help'])).toMatchObject({ status: 0, stdout: expect.stringContaining('Usage: typemcp <command>') });
    const version = JSON.parse(fs.readFileSync(path.join(repoRoot, 'packages', 'cli', 'package.json'), 'utf8')).version;
    expect(runCli(['--version'])).toMatchObject({ status: 0, stdout: `${version}\n` });
  });

  it.each([
    [[], 'Usage: typemcp'],
    [['deploy'], 'unknown command "deploy"'],
    [['dev', '--stdio', '--http'], 'choose one of --stdio and --http'],
    [['dev', '--port', 'x'], '--port must be a number from 0 to 65535, not "x"'],
    [['inspect', '--colour'], "Unknown option '--colour'"],
    [['call'], 'the tool to call is missing'],
    [['call', 'hello', cjsServer, '--args', '[1]'], '--args must be a JSON object'],
    [['call', 'hello', cjsServer, '--args', '{"name":'], '--args is not valid JSON'],
    [['inspect', 'missing.ts'], 'missing.ts does not exist'],
  ])('%j exits with 2: %s', (args, message) => {
    const result = runCli(args);
    expect(result.status).toBe(2);
    expect(`${result.stdout}${result.stderr}`).toContain(message);
  });
});

describe('output', () => {
  const stream = (isTTY: boolean) => ({ isTTY, write: () => true }) as unknown as NodeJS.WriteStream;
  it('colours a terminal and stays plain when piped or NO_COLOR is set', () => {
    expect(createOutput(stream(true), {}).colour).toBe(true);
    expect(createOutput(stream(true), {}).green('ok')).toBe('\u001b[32mok\u001b[39m');
    expect(createOutput(stream(false), {}).colour).toBe(false);
    expect(createOutput(stream(false), {}).green('ok')).toBe('ok');
    expect(createOutput(stream(true), { NO_COLOR: '' }).colour).toBe(false);
    expect(createOutput(stream(true), { TERM: 'dumb' }).colour).toBe(false);
  });
});

describe('typemcp inspect', () => {
  it('describes a schema in one line', () => {
    expect(describeSchema({ type: 'object', properties: { a: { type: 'string' }, b: { type: 'array', items: { type: 'integer' } }, c: { enum: ['x', 'y'] } }, required: ['a'] })).toBe(
      '{ a: string, b?: integer[], c?: "x" | "y" }',
    );
  });

  it('lists what a TypeScript server offers, as a table', () => {
    const result = runCli(['inspect', cjsServer]);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('greeter 1.0.0 (protocol 2025-11-25)');
    expect(result.stdout).toMatch(/Tools \(2\)\n {2}hello +Says hello\n +input: \{ name: string \}\n +annotations: \{"readOnlyHint":true\}/);
    expect(result.stdout).toMatch(/Resources \(1\)\n {2}greeter:\/\/motd +Message of the day/);
    expect(result.stdout).toMatch(/Prompts \(1\)\n {2}welcome +A greeting prompt\n +arguments: name/);
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
    expect(client.received.filter((m) => m.id === 'typemcp-dev-replay')).toEqual([]);
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

describe('typemcp build', () => {
  it('bundles the compiled server into one file that runs on its own', async () => {
    const project = copyFixture('cjs');
    fs.mkdirSync(path.join(project, 'src'));
    for (const file of ['server.ts', 'greeting.ts']) fs.renameSync(path.join(project, file), path.join(project, 'src', file));
    fs.writeFileSync(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', types: ['node'], strict: true, experimentalDecorators: true, emitDecoratorMetadata: true, skipLibCheck: true, rootDir: 'src', outDir: 'dist' },
        include: ['src'],
      }),
    );
    const built = runCli(['build', 'dist/server.js', '--minify'], project);
    expect(built.stderr).toMatch(/built dist\/bundle\/server\.js \d+ KiB in \d+ ms/);
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

  it('stops when tsc reports errors', () => {
    const project = copyFixture('cjs');
    fs.writeFileSync(path.join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, noEmit: false, outDir: 'dist' }, files: ['bad.ts'] }));
    fs.writeFileSync(path.join(project, 'bad.ts'), 'const n: number = "not a number";\n');
    const result = runCli(['build'], project);
    fs.rmSync(project, { recursive: true, force: true });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('tsc reported errors; no bundle was made');
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
