/**
 * `npm create typemcp` at a terminal: with no option it asks what to make (the example tools
 * or one hello tool among it), and the project matches the answers. The command runs in a
 * pseudo-terminal (Debian's `script`, util-linux), and the test types the keys a person types.
 * Without a terminal, or with any option, it asks nothing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';

const repoRoot = path.resolve(__dirname, '..', '..', '..');
const bin = path.join(repoRoot, 'packages', 'create-typemcp', 'dist', 'bin.js');
const ENTER = '\r';
const DOWN = '\u001b[B';

let work: string;
/** The pseudo-terminals a test started: none outlives it. */
const running: ChildProcess[] = [];
afterEach(async () => {
  for (const child of running.splice(0)) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
});
beforeAll(() => {
  const tsc = path.join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');
  const built = spawnSync(process.execPath, [tsc, '-b', path.join(repoRoot, 'packages', 'create-typemcp')], { encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`building create-typemcp failed:\n${built.stdout}${built.stderr}`);
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'typemcp-create-pty-'));
}, 60_000);
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

/** The command in a pseudo-terminal: `answer` waits for a question, then types. */
function atTerminal(args: string[]) {
  // A terminal of a person's size: without one, the pseudo-terminal is 0 columns wide.
  const command = `stty cols 120 rows 40; ${[process.execPath, bin, ...args].map((arg) => `'${arg}'`).join(' ')}`;
  const child = spawn('script', ['-qfec', command, '/dev/null'], { cwd: work, env: { ...process.env, npm_config_user_agent: 'npm/11 node/v20', npm_config_registry: '' } });
  let screen = '';
  let seen = 0;
  const collect = (chunk: Buffer) => (screen += chunk.toString('utf8').replace(/\u001b\[[0-9;?]*[A-Za-z]/g, ''));
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  running.push(child);
  return {
    exited,
    get screen() {
      return screen;
    },
    async answer(question: string, ...keys: string[]) {
      for (const start = Date.now(); !screen.includes(question, seen); await new Promise((r) => setTimeout(r, 25))) {
        if (Date.now() - start > 10_000) throw new Error(`no question "${question}" on the screen:\n${screen.slice(seen)}`);
      }
      seen = screen.indexOf(question, seen) + question.length;
      for (const key of keys) {
        child.stdin.write(key);
        await new Promise((r) => setTimeout(r, 60));
      }
    },
  };
}

const read = (project: string, file: string) => fs.readFileSync(path.join(work, project, file), 'utf8');
const manifest = (project: string) => JSON.parse(read(project, 'package.json')) as { name: string; scripts: Record<string, string>; dependencies: Record<string, string>; devDependencies: Record<string, string> };

describe('npm create typemcp at a terminal', () => {
  it('asks for the folder, runtime, sign-in, transport, example tools and install, and makes that project', async () => {
    const terminal = atTerminal([]);
    await terminal.answer('Folder to create the project in', 'pty-http', ENTER);
    await terminal.answer('Where does the server run?', ENTER);
    await terminal.answer('behind its own OAuth sign-in', 'n');
    await terminal.answer('Which transport does it serve by default?', DOWN, ENTER);
    // Enter takes the default: the examples.
    await terminal.answer('Include the example tools?', ENTER);
    await terminal.answer('Install the dependencies now?', 'n');
    expect(await terminal.exited).toBe(0);
    expect(terminal.screen).toContain('Created pty-http in');
    expect(terminal.screen).toContain('(12 files, http by default)');
    expect(manifest('pty-http').name).toBe('pty-http');
    expect(read('pty-http', 'src/main.ts')).toContain("const DEFAULT_TRANSPORT: 'stdio' | 'http' = 'http';");
    expect(manifest('pty-http').scripts.dev).toContain('--http');
    expect(fs.existsSync(path.join(work, 'pty-http', 'src', 'auth.ts'))).toBe(false);
    expect(fs.existsSync(path.join(work, 'pty-http', 'src', 'notes', 'NoteTools.ts'))).toBe(true);
    // Not installed: the answer was no.
    expect(fs.existsSync(path.join(work, 'pty-http', 'node_modules'))).toBe(false);
  }, 30_000);

  it('asks no transport for sign-in (HTTP) and none for a Worker, and takes the folder given', async () => {
    const signIn = atTerminal(['pty-signin']);
    await signIn.answer('Where does the server run?', ENTER);
    await signIn.answer('behind its own OAuth sign-in', 'y');
    await signIn.answer('Include the example tools?', 'y');
    await signIn.answer('Install the dependencies now?', 'n');
    expect(await signIn.exited).toBe(0);
    expect(signIn.screen).not.toContain('Folder to create the project in');
    expect(signIn.screen).not.toContain('Which transport');
    expect(signIn.screen).toContain('http with sign-in');
    expect(fs.existsSync(path.join(work, 'pty-signin', 'src', 'auth.ts'))).toBe(true);
    expect(manifest('pty-signin').dependencies).toHaveProperty('@typemcp/auth');

    const worker = atTerminal(['pty-worker']);
    await worker.answer('Where does the server run?', DOWN, DOWN, DOWN, ENTER);
    await worker.answer('Include the example tools?', 'y');
    await worker.answer('Install the dependencies now?', 'n');
    expect(await worker.exited).toBe(0);
    expect(worker.screen).not.toMatch(/OAuth sign-in|Which transport/);
    expect(worker.screen).toContain('Streamable HTTP on workerd');
    expect(fs.existsSync(path.join(work, 'pty-worker', 'src', 'worker.ts'))).toBe(true);
    expect(manifest('pty-worker').devDependencies).toHaveProperty('wrangler');
  }, 30_000);

  it('makes a project with one hello tool when the answer to the example tools is no, for sign-in too', async () => {
    const terminal = atTerminal(['pty-minimal']);
    await terminal.answer('Where does the server run?', ENTER);
    await terminal.answer('behind its own OAuth sign-in', 'n');
    await terminal.answer('Which transport does it serve by default?', ENTER);
    await terminal.answer('Include the example tools?', 'n');
    await terminal.answer('Install the dependencies now?', 'n');
    expect(await terminal.exited).toBe(0);
    expect(terminal.screen).toContain('(11 files, stdio by default, one hello tool)');
    expect(read('pty-minimal', 'src/hello/HelloTools.ts')).toContain("@Tool({ description: 'Say hello to someone'");
    expect(read('pty-minimal', 'src/server.ts')).toContain('providers: [HelloTools]');
    expect(read('pty-minimal', 'test/server.test.ts')).toContain("client.callTool('hello', { name: 'Ada' })");
    expect(fs.existsSync(path.join(work, 'pty-minimal', 'src', 'notes'))).toBe(false);
    expect(manifest('pty-minimal').name).toBe('pty-minimal');

    const signIn = atTerminal(['pty-minimal-signin']);
    await signIn.answer('Where does the server run?', ENTER);
    await signIn.answer('behind its own OAuth sign-in', 'y');
    await signIn.answer('Include the example tools?', 'n');
    await signIn.answer('Install the dependencies now?', 'n');
    expect(await signIn.exited).toBe(0);
    expect(signIn.screen).toContain('http with sign-in, one hello tool');
    expect(read('pty-minimal-signin', 'src/hello/HelloTools.ts')).toContain("@Scopes('hello')");
    expect(fs.existsSync(path.join(work, 'pty-minimal-signin', 'src', 'notes'))).toBe(false);
    expect(manifest('pty-minimal-signin').dependencies).toHaveProperty('@typemcp/auth');
  }, 30_000);

  it('creates nothing when the person cancels', async () => {
    const terminal = atTerminal(['pty-cancelled']);
    await terminal.answer('Where does the server run?', '\u0003');
    expect(await terminal.exited).toBe(130);
    expect(terminal.screen).toContain('Cancelled: nothing was created.');
    expect(fs.existsSync(path.join(work, 'pty-cancelled'))).toBe(false);
  }, 30_000);

  it('asks nothing at a terminal when an option is given (--yes takes the defaults)', async () => {
    for (const [project, options, serves] of [
      ['pty-yes', ['--yes'], 'stdio by default'],
      ['pty-bun', ['--runtime', 'bun'], 'for bun, stdio by default'],
    ] as const) {
      const terminal = atTerminal([project, ...options]);
      expect(await terminal.exited).toBe(0);
      expect(terminal.screen).not.toContain('Where does the server run?');
      expect(terminal.screen).toContain(`Created ${project} in ${path.join(work, project)} (`);
      expect(terminal.screen).toContain(serves);
    }
  }, 30_000);

  it('asks nothing without a terminal: a missing folder is a usage error, a given one is made with the defaults', () => {
    const missing = spawnSync(process.execPath, [bin], { cwd: work, encoding: 'utf8', input: '' });
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain('create-typemcp: the directory to create is missing');
    expect(missing.stdout).not.toContain('Where does the server run?');
    const made = spawnSync(process.execPath, [bin, 'piped'], { cwd: work, encoding: 'utf8', input: '' });
    expect(made.status).toBe(0);
    expect(made.stdout).toContain('stdio by default');
  });
});
