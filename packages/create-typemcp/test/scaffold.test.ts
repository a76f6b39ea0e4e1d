import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { nextSteps, packageNameProblem, scaffold, ScaffoldError } from '../src';
import { runTsPath } from '../../../test-support/spawnServer';

const templateDir = path.join(__dirname, '..', '..', '..', 'templates', 'default');
const binTs = path.join(__dirname, '..', 'src', 'bin.ts');

let workDir: string;
beforeEach(() => {
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'create-typemcp-'));
});
afterEach(() => fs.rmSync(workDir, { recursive: true, force: true }));

const read = (...parts: string[]) => fs.readFileSync(path.join(workDir, ...parts), 'utf8');

describe('scaffold', () => {
  it('copies the template, names the project and pins the @typemcp packages', () => {
    const result = scaffold({ directory: path.join(workDir, 'my-server'), typemcpVersion: '^1.2.3' });
    expect(result.name).toBe('my-server');
    expect(result.files).toEqual(expect.arrayContaining(['.gitignore', 'package.json', 'README.md', path.join('src', 'main.ts'), path.join('test', 'server.test.ts')]));
    expect(result.files).not.toContain('gitignore');

    const manifest = JSON.parse(read('my-server', 'package.json'));
    expect(manifest.name).toBe('my-server');
    expect(manifest.private).toBe(true);
    expect(manifest.dependencies['@typemcp/core']).toBe('^1.2.3');
    expect(manifest.devDependencies['@typemcp/testing']).toBe('^1.2.3');
    expect(manifest.devDependencies['@typemcp/cli']).toBe('^1.2.3');
    expect(manifest.dependencies.tsyringe).toBe(JSON.parse(fs.readFileSync(path.join(templateDir, 'package.json'), 'utf8')).dependencies.tsyringe);

    expect(read('my-server', 'README.md')).toContain('"my-server": {');
    expect(read('my-server', 'README.md')).not.toContain('typemcp-template-default');
    expect(read('my-server', 'src', 'server.ts')).toContain("name: 'my-server'");
    expect(read('my-server', 'src', 'main.ts')).toContain("const DEFAULT_TRANSPORT: 'stdio' | 'http' = 'stdio';");
    // Nothing the template folder holds from its own builds and installs comes along.
    expect(fs.existsSync(path.join(workDir, 'my-server', 'node_modules'))).toBe(false);
    expect(fs.existsSync(path.join(workDir, 'my-server', 'dist'))).toBe(false);
  });

  it.each([
    ['bun', 'bun test', path.join('src', 'main.ts'), 'Bun.serve'],
    ['deno', 'tsc -p tsconfig.json && deno test --no-check --no-prompt --allow-read --allow-env test/', path.join('src', 'main.ts'), 'Deno.serve'],
    ['workers', 'jest && npm run test:worker', path.join('src', 'worker.ts'), 'fetchHandler({ stateless: true'],
  ] as const)('lays the %s overlay over the template: its entry, README, scripts and dependencies', (runtime, test, entry, serves) => {
    const result = scaffold({ directory: path.join(workDir, 'edge'), runtime, transport: 'http' });
    const manifest = JSON.parse(read('edge', 'package.json'));
    expect(manifest.scripts.test).toBe(test);
    expect(manifest.name).toBe('edge');
    expect(read('edge', entry)).toContain(serves);
    expect(read('edge', 'README.md')).toContain('# edge');
    expect(result.files).toContain(entry);
    expect(result.files).not.toContain('overlay.json');
    for (const file of result.files) expect(fs.existsSync(path.join(workDir, 'edge', file))).toBe(true);
    if (runtime === 'workers') {
      expect(manifest.devDependencies.wrangler).toBe('4.164.0');
      expect(manifest.main).toBe('dist/worker.js');
      expect(result.files).not.toContain(path.join('src', 'main.ts'));
    } else {
      expect(manifest.devDependencies.jest).toBeUndefined();
      expect(result.files).not.toContain('jest.config.cjs');
      expect(read('edge', 'src', 'main.ts')).toContain("const DEFAULT_TRANSPORT: 'stdio' | 'http' = 'http';");
    }
  });

  it('with signIn, lays the sign-in overlay over the template: @typemcp/auth, signIn wired with a development login, scoped tools, its tests and README', () => {
    const result = scaffold({ directory: path.join(workDir, 'secure'), signIn: true, typemcpVersion: '^1.2.3' });
    const manifest = JSON.parse(read('secure', 'package.json'));
    // The same range as the other @typemcp packages, among the dependencies in order.
    expect(manifest.dependencies['@typemcp/auth']).toBe('^1.2.3');
    expect(manifest.dependencies['@typemcp/core']).toBe('^1.2.3');
    expect(Object.keys(manifest.dependencies)).toEqual(Object.keys(manifest.dependencies).sort());
    expect(manifest.scripts.dev).toBe('typemcp dev src/main.ts --http');
    expect(manifest.scripts.test).toBe('jest');

    expect(result.files).toEqual(expect.arrayContaining(['README.md', 'jest.config.cjs', ...[['src', 'auth.ts'], ['src', 'main.ts'], ['src', 'server.ts'], ['test', 'server.test.ts'], ['test', 'signin.test.ts']].map((parts) => path.join(...parts))]));
    expect(result.files).not.toContain('overlay.json');
    for (const file of result.files) expect(fs.existsSync(path.join(workDir, 'secure', file))).toBe(true);

    expect(read('secure', 'src', 'server.ts')).toContain('server.plugin(signIn, {');
    expect(read('secure', 'src', 'server.ts')).toContain("name: 'secure'");
    expect(read('secure', 'src', 'auth.ts')).toContain('developmentLogin({ users: DEVELOPMENT_USERS })');
    expect(read('secure', 'src', 'auth.ts')).toContain('env.SIGNIN_SECRET');
    expect(read('secure', 'src', 'main.ts')).toContain("transport: 'http'");
    expect(read('secure', 'src', 'notes', 'NoteTools.ts')).toMatch(/@Tool\(\{ description: 'Save a note'.*\n\s+@Scopes\('notes:write'\)/);
    expect(read('secure', 'src', 'notes', 'NoteTools.ts')).toMatch(/@Tool\(\{ description: 'Read one note by its id'.*\n\s+@Scopes\('notes:read'\)/);
    expect(read('secure', 'test', 'signin.test.ts')).toContain('/.well-known/oauth-authorization-server');
    const readme = read('secure', 'README.md');
    expect(readme).toContain('# secure');
    expect(readme).toContain('## Sign in');
    expect(readme).toContain('## Before production');
    expect(readme).not.toContain('typemcp-template-default');
  });

  it("keeps the sign-in overlay's NoteStore the template's own (it is there for the overlay's tests in the repository)", () => {
    const own = (dir: string) => fs.readFileSync(path.join(templateDir, '..', dir, 'src', 'notes', 'NoteStore.ts'), 'utf8');
    expect(own('signin')).toBe(own('default'));
  });

  it("compiles for jest every dependency of @typemcp/auth that ships ES modules only (jest cannot require them)", () => {
    const config = require(path.join(templateDir, '..', 'signin', 'jest.config.cjs')) as { transform: Record<string, unknown>; transformIgnorePatterns: string[] };
    const auth = JSON.parse(fs.readFileSync(path.join(templateDir, '..', '..', 'packages', 'auth', 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const esModulesOnly = Object.keys(auth.dependencies).filter((dependency) => JSON.parse(fs.readFileSync(require.resolve(`${dependency}/package.json`), 'utf8')).type === 'module');
    expect(esModulesOnly).toContain('jose');
    for (const dependency of esModulesOnly) {
      const file = `/project/node_modules/${dependency}/dist/index.js`;
      expect({ dependency, ignored: config.transformIgnorePatterns.some((pattern) => new RegExp(pattern).test(file)) }).toEqual({ dependency, ignored: false });
      expect({ dependency, transformed: Object.keys(config.transform).some((pattern) => new RegExp(pattern).test(file)) }).toEqual({ dependency, transformed: true });
    }
    expect(config.transformIgnorePatterns.some((pattern) => new RegExp(pattern).test('/project/node_modules/class-validator/cjs/index.js'))).toBe(true);
  });

  it('refuses sign-in for another runtime or over stdio, writing nothing', () => {
    expect(() => scaffold({ directory: path.join(workDir, 'a'), signIn: true, runtime: 'workers' })).toThrow('Sign-in is made for the node runtime, not workers');
    expect(() => scaffold({ directory: path.join(workDir, 'b'), signIn: true, transport: 'stdio' })).toThrow('A project with sign-in serves HTTP');
    expect(fs.readdirSync(workDir)).toEqual([]);
  });

  it('makes HTTP the default transport when asked', () => {
    scaffold({ directory: path.join(workDir, 'web'), transport: 'http' });
    expect(read('web', 'src', 'main.ts')).toContain("const DEFAULT_TRANSPORT: 'stdio' | 'http' = 'http';");
  });

  it('uses its own version for the @typemcp packages by default', () => {
    scaffold({ directory: path.join(workDir, 'p') });
    const own = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')).version;
    expect(JSON.parse(read('p', 'package.json')).dependencies['@typemcp/core']).toBe(`^${own}`);
  });

  it('accepts an empty directory or one holding only .git, and refuses one with files', () => {
    fs.mkdirSync(path.join(workDir, 'empty', '.git'), { recursive: true });
    expect(() => scaffold({ directory: path.join(workDir, 'empty') })).not.toThrow();

    fs.mkdirSync(path.join(workDir, 'taken'));
    fs.writeFileSync(path.join(workDir, 'taken', 'notes.txt'), 'mine');
    expect(() => scaffold({ directory: path.join(workDir, 'taken') })).toThrow(ScaffoldError);
    expect(() => scaffold({ directory: path.join(workDir, 'taken') })).toThrow(/is not empty/);
    expect(fs.readdirSync(path.join(workDir, 'taken'))).toEqual(['notes.txt']);
  });

  it('refuses names npm would refuse, saying why', () => {
    expect(() => scaffold({ directory: path.join(workDir, 'My Server') })).toThrow(/"My Server" cannot be a package name: it has capital letters/);
    expect(() => scaffold({ directory: path.join(workDir, 'ok'), name: 'bad name' })).toThrow(/only lowercase letters/);
    expect(fs.existsSync(path.join(workDir, 'ok'))).toBe(false);
    expect(packageNameProblem('@acme/tools')).toBeUndefined();
    expect(packageNameProblem('_private')).toMatch(/starts with/);
    expect(packageNameProblem('')).toBe('it is empty');
  });

  it('names the next steps for the chosen package manager', () => {
    const result = { directory: path.join(process.cwd(), 'srv'), name: 'srv', files: [] };
    expect(nextSteps(result, 'npm', false)).toEqual(['cd srv', 'npm install', 'npm run build && npm start', 'npm run test', 'npm run dev']);
    expect(nextSteps(result, 'pnpm', true)).toEqual(['cd srv', 'pnpm build && pnpm start', 'pnpm test', 'pnpm dev']);
  });
});

describe('the create-typemcp command', () => {
  const run = (args: string[], env: NodeJS.ProcessEnv = {}) =>
    spawnSync(process.execPath, ['-r', runTsPath, binTs, ...args], { cwd: workDir, encoding: 'utf8', env: { ...process.env, ...env } });

  it('creates the project and prints the next steps', () => {
    const result = run(['srv', '--transport', 'http'], { npm_config_user_agent: 'pnpm/9.0.0 npm/? node/v20' });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain(`Created srv in ${path.join(fs.realpathSync(workDir), 'srv')}`);
    expect(result.stdout).toContain('http by default');
    expect(result.stdout).toMatch(/Next steps:\n {2}cd srv\n {2}pnpm install\n/);
    expect(read('srv', 'src', 'main.ts')).toContain("= 'http';");
  });

  it('creates a project with sign-in for --sign-in, and refuses it with --transport stdio', () => {
    const result = run(['secure', '--sign-in']);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('http with sign-in');
    expect(result.stdout).toContain('See README.md in the project for signing in');
    expect(JSON.parse(read('secure', 'package.json')).dependencies['@typemcp/auth']).toMatch(/^\^\d/);

    const stdio = run(['other', '--sign-in', '--transport', 'stdio']);
    expect(stdio.status).toBe(2);
    expect(stdio.stderr).toContain('A project with sign-in serves HTTP');
    expect(fs.existsSync(path.join(workDir, 'other'))).toBe(false);
  });

  it('exits with 2 on an unknown runtime', () => {
    const result = spawnSync(process.execPath, ['-r', runTsPath, binTs, path.join(workDir, 'x'), '--runtime', 'lambda'], { encoding: 'utf8' });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('--runtime must be one of node, bun, deno, workers, not "lambda"');
    expect(fs.existsSync(path.join(workDir, 'x'))).toBe(false);
  });

  it('exits with 2 and the usage on bad input, writing nothing', () => {
    const missing = run([]);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain('the directory to create is missing');
    expect(missing.stderr).toContain('Usage: npm create typemcp');

    const badTransport = run(['srv', '--transport', 'sse']);
    expect(badTransport.status).toBe(2);
    expect(badTransport.stderr).toContain('--transport must be stdio or http, not "sse"');

    const unknown = run(['srv', '--colour']);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain("Unknown option '--colour'");
    expect(fs.readdirSync(workDir)).toEqual([]);
  });

  it('refuses a non-empty directory with exit code 2', () => {
    fs.mkdirSync(path.join(workDir, 'srv'));
    fs.writeFileSync(path.join(workDir, 'srv', 'index.js'), '');
    const result = run(['srv']);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('is not empty');
  });
});
