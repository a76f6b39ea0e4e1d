import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { parse as parseYaml } from 'yaml';
import { run as typemcp } from '@typemcp/cli';
import { createOutput } from '../../cli/src/output';
import { nextSteps, packageNameProblem, PLACEHOLDER_NAMESPACE, scaffold, ScaffoldError } from '../src';
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
      // wrangler needs Node 22: the npm package node@22 puts it first on the scripts' PATH, on Node 20 too.
      expect(manifest.devDependencies.node).toMatch(/^22\.\d+\.\d+$/);
      expect(manifest.main).toBe('dist/worker.js');
      expect(result.files).not.toContain(path.join('src', 'main.ts'));
      // A Worker has no stdio: npm run inspect reads the same server on Node.
      expect(manifest.scripts.inspect).toBe('tsc -p tsconfig.json && typemcp inspect dist/local.js');
      expect(read('edge', 'src', 'local.ts')).toContain("createServer().listen({ transport: 'stdio' })");
      expect(read('edge', 'README.md')).toContain('the npm package `node@22`) puts Node 22 first on the PATH');
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

  describe('without the examples (examples: false)', () => {
    /** Every file of the project, by its path. */
    const filesOf = (project: string, files: string[]) => Object.fromEntries(files.map((file) => [file, read(project, file)]));

    it.each([
      ['node', {}, 'test/server.test.ts'],
      ['bun', { runtime: 'bun', transport: 'http' }, 'test/server.test.ts'],
      ['deno', { runtime: 'deno', transport: 'http' }, 'test/server.test.mjs'],
      ['workers', { runtime: 'workers' }, 'test/server.test.ts'],
      ['signin', { signIn: true }, 'test/server.test.ts'],
    ] as const)('makes a %s project with one hello tool, its test and README, and nothing of the notes', (kind, options, test) => {
      const result = scaffold({ directory: path.join(workDir, 'hi'), ...options, examples: false, typemcpVersion: '^1.2.3' });
      const withExamples = scaffold({ directory: path.join(workDir, 'notes'), name: 'hi', ...options, typemcpVersion: '^1.2.3' });
      const files = filesOf('hi', result.files);

      expect(result.files).toEqual(expect.arrayContaining([path.join('src', 'hello', 'HelloTools.ts'), path.join('src', 'server.ts'), path.join(...test.split('/')), 'README.md']));
      expect(fs.existsSync(path.join(workDir, 'hi', 'src', 'notes'))).toBe(false);
      expect(result.files.filter((file) => file.includes('overlay.json'))).toEqual([]);
      // The example's files left out, the rest of the project as it is with them.
      const notesFiles = withExamples.files.filter((file) => file.startsWith(path.join('src', 'notes')));
      expect(notesFiles.length).toBeGreaterThan(0);
      expect([...result.files].sort()).toEqual([...withExamples.files.filter((file) => !notesFiles.includes(file)), path.join('src', 'hello', 'HelloTools.ts')].sort());
      for (const [file, text] of Object.entries(files)) expect({ file, notes: /add_note|read_note|NoteTools|NoteStore|notes:\/\/|notes:(read|write)|keeps notes/i.test(text) }).toEqual({ file, notes: false });

      expect(files[path.join('src', 'hello', 'HelloTools.ts')]).toMatch(/@IsString\(\) @MinLength\(1\)[\s\S]*name!: string;[\s\S]*@Tool\(\{ description: 'Say hello to someone'.*input: HelloInput \}\)/);
      expect(files[path.join('src', 'server.ts')]).toContain('providers: [HelloTools]');
      expect(files[path.join('src', 'server.ts')]).toContain("name: 'hi'");
      expect(files[path.join(...test.split('/'))]).toContain("'hello', { name: ");
      expect(files['README.md']).toContain('# hi\n');
      expect(files['README.md']).toContain('src/hello/HelloTools.ts');
      expect(files['README.md']).not.toContain('typemcp-template-default');

      // package.json: the same scripts and dependencies, another description.
      const manifest = JSON.parse(files['package.json']);
      const theirs = JSON.parse(read('notes', 'package.json'));
      expect(manifest).toEqual({ ...theirs, description: 'Says hello: a starting point for your own tools' });
      if (files['server.json']) expect(JSON.parse(files['server.json']).description).toBe(manifest.description);

      if (kind === 'deno') expect(result.files).not.toContain(path.join('test', 'server.test.ts'));
      if (kind === 'workers') {
        expect(files[path.join('test', 'on-workerd.mjs')]).toContain("name: 'hello', arguments: { name: 'Edge' }");
        expect(files[path.join('src', 'worker.ts')]).toContain('createServer({ secret: env.MCP_REQUEST_STATE_SECRET })');
      }
      if (kind === 'signin') {
        // Sign-in still guards the tool: hello needs the scope hello, which the consent page asks for.
        expect(files[path.join('src', 'hello', 'HelloTools.ts')]).toMatch(/@Tool\(\{ description: 'Say hello to someone'.*\n\s+@Scopes\('hello'\)/);
        expect(files[path.join('src', 'server.ts')]).toContain('server.plugin(signIn, {');
        expect(files[path.join('src', 'server.ts')]).toContain("defaultScopes: ['hello']");
        expect(files[path.join('test', 'server.test.ts')]).toContain('code: -32003, data: { scopes: [\'hello\'] }');
        expect(files[path.join('test', 'signin.test.ts')]).toContain('scope="hello"');
        expect(files[path.join('src', 'auth.ts')]).toContain('developmentLogin({ users: DEVELOPMENT_USERS })');
        expect(manifest.dependencies['@typemcp/auth']).toBe('^1.2.3');
      } else {
        expect(files[path.join('src', 'hello', 'HelloTools.ts')]).not.toContain('@Scopes');
      }
    });

    it("keeps the minimal sign-in overlay's auth.ts the sign-in overlay's own (it is there for the overlay's tests in the repository)", () => {
      const own = (...dir: string[]) => fs.readFileSync(path.join(templateDir, '..', ...dir, 'src', 'auth.ts'), 'utf8');
      expect(own('minimal', 'signin')).toBe(own('signin'));
    });
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

describe('publishing: mcpName, server.json and the workflow', () => {
  /** `typemcp registry validate <file>`, in this process: its exit code and what it printed. */
  const validate = async (file: string) => {
    let printed = '';
    const code = await typemcp(['registry', 'validate', file], createOutput({ write: (text: string) => (printed += text) } as unknown as NodeJS.WriteStream, {}));
    return { code, printed };
  };

  it('names the server in the MCP Registry as asked, and the project passes typemcp registry validate as created', async () => {
    const result = scaffold({ directory: path.join(workDir, 'weather'), name: '@acme/weather', mcpName: 'io.github.acme/weather', typemcpVersion: '^1.2.3' });
    const manifest = JSON.parse(read('weather', 'package.json'));
    expect(manifest.mcpName).toBe('io.github.acme/weather');
    // npx runs the package's bin, named without the scope.
    expect(manifest.bin).toEqual({ weather: 'dist/main.js' });
    expect(read('weather', 'src', 'main.ts').startsWith('#!/usr/bin/env node\n')).toBe(true);
    const serverJson = JSON.parse(read('weather', 'server.json'));
    expect(serverJson).toMatchObject({ name: 'io.github.acme/weather', version: manifest.version, packages: [{ registryType: 'npm', identifier: '@acme/weather', version: manifest.version }] });
    expect(result.files).toEqual(expect.arrayContaining(['server.json', path.join('.github', 'workflows', 'publish.yml')]));
    expect(result.files).not.toContain(path.join('github', 'workflows', 'publish.yml'));

    const checked = await validate(path.join(workDir, 'weather', 'server.json'));
    expect(checked.printed).toContain('valid');
    expect(checked.code).toBe(0);
    // Created private, so nothing is published by accident: validate says what npm will want.
    expect(checked.printed).toContain('"private": true');
  });

  it('writes a placeholder namespace without --mcp-name, which typemcp registry refuses until it is set', async () => {
    scaffold({ directory: path.join(workDir, 'notes') });
    expect(JSON.parse(read('notes', 'package.json')).mcpName).toBe(`${PLACEHOLDER_NAMESPACE}/notes`);
    expect(JSON.parse(read('notes', 'server.json')).name).toBe(`${PLACEHOLDER_NAMESPACE}/notes`);
    const checked = await validate(path.join(workDir, 'notes', 'server.json'));
    expect(checked.code).toBe(1);
    expect(checked.printed).toContain('"mcpName" is still the placeholder "io.github.your-github-user/notes": set your own namespace');
  });

  it('refuses an mcpName the registry would, writing nothing', () => {
    for (const mcpName of ['weather', 'io.github.acme/weather/v2', 'io github/weather']) {
      expect(() => scaffold({ directory: path.join(workDir, 'bad'), mcpName })).toThrow(/cannot be an MCP Registry name/);
    }
    expect(fs.existsSync(path.join(workDir, 'bad'))).toBe(false);
  });

  it.each([['bun'], ['deno'], ['workers'], ['signin']])('leaves server.json and bin out of the %s overlay: its server is not run with npx over stdio', (overlay) => {
    const result = scaffold({ directory: path.join(workDir, 'edge'), ...(overlay === 'signin' ? { signIn: true } : { runtime: overlay as 'bun', transport: 'http' }), mcpName: 'io.github.acme/edge' });
    const manifest = JSON.parse(read('edge', 'package.json'));
    expect(manifest.mcpName).toBe('io.github.acme/edge');
    expect(manifest.bin).toBeUndefined();
    expect(result.files).not.toContain('server.json');
    expect(result.files).toContain(path.join('.github', 'workflows', 'publish.yml'));
  });

  it('ships a workflow that publishes to npm, then to the MCP Registry with mcp-publisher, every version pinned', () => {
    scaffold({ directory: path.join(workDir, 'srv'), mcpName: 'io.github.acme/srv' });
    const workflow = parseYaml(read('srv', '.github', 'workflows', 'publish.yml'));
    expect(workflow.on).toEqual({ release: { types: ['published'] } });
    // GitHub's OIDC token is what mcp-publisher login github-oidc presents.
    expect(workflow.permissions).toEqual({ contents: 'read', 'id-token': 'write' });
    expect(workflow.env.MCP_PUBLISHER_VERSION).toMatch(/^\d+\.\d+\.\d+$/);
    const steps: Array<{ uses?: string; run?: string; with?: Record<string, unknown> }> = workflow.jobs.publish.steps;
    const actions = steps.filter((step) => step.uses).map((step) => step.uses);
    expect(actions).toEqual([expect.stringMatching(/^actions\/checkout@v\d+\.\d+\.\d+$/), expect.stringMatching(/^actions\/setup-node@v\d+\.\d+\.\d+$/)]);
    expect(steps.find((step) => step.uses?.startsWith('actions/setup-node'))?.with?.['registry-url']).toBe('https://registry.npmjs.org');
    const commands = steps.filter((step) => step.run).map((step) => step.run!.trim());
    expect(commands).toEqual([
      'npm ci',
      'npm run build',
      'npm test',
      'npx typemcp registry validate',
      'npm publish --provenance --access public',
      expect.stringContaining('releases/download/v${MCP_PUBLISHER_VERSION}/mcp-publisher_linux_amd64.tar.gz'),
      './mcp-publisher login github-oidc',
      './mcp-publisher publish',
    ]);
    // Nothing floats: no latest download, no unpinned action.
    expect(read('srv', '.github', 'workflows', 'publish.yml')).not.toMatch(/download\/latest|@main|@v\d+\s/);
  });

  it('makes `npm run dev` serve the transport the project was created with (typemcp dev serves stdio unless told)', () => {
    scaffold({ directory: path.join(workDir, 'web'), transport: 'http' });
    expect(JSON.parse(read('web', 'package.json')).scripts.dev).toBe('typemcp dev src/main.ts --http');
    scaffold({ directory: path.join(workDir, 'local'), transport: 'stdio' });
    expect(JSON.parse(read('local', 'package.json')).scripts.dev).toBe('typemcp dev src/main.ts');
  });

  it('gives a project made from another registry a .npmrc that keeps asking it for the @typemcp packages', () => {
    const result = scaffold({ directory: path.join(workDir, 'local'), registry: 'http://127.0.0.1:4873' });
    expect(result.files).toContain('.npmrc');
    expect(read('local', '.npmrc')).toMatch(/^@typemcp:registry=http:\/\/127\.0\.0\.1:4873\/$/m);
    // Only the @typemcp scope: everything else still comes from the user's own registry.
    expect(read('local', '.npmrc')).not.toMatch(/^registry=/m);
    expect(scaffold({ directory: path.join(workDir, 'public') }).files).not.toContain('.npmrc');
    expect(() => scaffold({ directory: path.join(workDir, 'bad'), registry: 'ftp://example.com' })).toThrow('must be http or https');
    expect(fs.existsSync(path.join(workDir, 'bad'))).toBe(false);
  });

  it('makes a Worker serve HTTP without being told, and refuses stdio for it', () => {
    scaffold({ directory: path.join(workDir, 'edge'), runtime: 'workers' });
    expect(JSON.parse(read('edge', 'package.json')).main).toBe('dist/worker.js');
    expect(() => scaffold({ directory: path.join(workDir, 'other'), runtime: 'workers', transport: 'stdio' })).toThrow('A Worker serves Streamable HTTP only');
  });

  it('takes --mcp-name on the command line', () => {
    const result = spawnSync(process.execPath, ['-r', runTsPath, binTs, 'srv', '--mcp-name', 'com.example/srv'], { cwd: workDir, encoding: 'utf8' });
    expect(result.status).toBe(0);
    expect(JSON.parse(read('srv', 'package.json')).mcpName).toBe('com.example/srv');
    const bad = spawnSync(process.execPath, ['-r', runTsPath, binTs, 'other', '--mcp-name', 'srv'], { cwd: workDir, encoding: 'utf8' });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('"srv" cannot be an MCP Registry name');
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

  it('keeps a local registry that npm create ran with (npm_config_registry) in the project\'s .npmrc, and says so', () => {
    const result = run(['srv'], { npm_config_registry: 'http://127.0.0.1:4873/' });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(read('srv', '.npmrc')).toContain('@typemcp:registry=http://127.0.0.1:4873/\n');
    expect(result.stdout).toMatch(/Next steps:\n {2}cd srv\n {2}npm install\n/);
    expect(result.stdout).toContain("The @typemcp packages come from http://127.0.0.1:4873/: the project's .npmrc says so");

    // The public registry, or another one the user set up for everything: no .npmrc.
    const elsewhere = run(['public'], { npm_config_registry: 'https://registry.npmjs.org/' });
    expect(elsewhere.status).toBe(0);
    expect(fs.existsSync(path.join(workDir, 'public', '.npmrc'))).toBe(false);
    expect(elsewhere.stdout).not.toContain('The @typemcp packages come from');

    // --registry names it outright.
    const named = run(['named', '--registry', 'https://npm.example.com/typemcp'], { npm_config_registry: '' });
    expect(named.status).toBe(0);
    expect(read('named', '.npmrc')).toContain('@typemcp:registry=https://npm.example.com/typemcp/\n');
  });

  it('says a Workers project serves HTTP on workerd, not stdio', () => {
    const result = run(['edge', '--runtime', 'workers']);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('for workers, Streamable HTTP on workerd)');
    expect(result.stdout).not.toContain('stdio');
    expect(result.stdout).toContain('wrangler, on Node 22 from the npm package node@22');

    const stdio = run(['other', '--runtime', 'workers', '--transport', 'stdio']);
    expect(stdio.status).toBe(2);
    expect(stdio.stderr).toContain('A Worker serves Streamable HTTP only');
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

  it('starts from one hello tool with --no-examples, and says so', () => {
    const result = run(['hi', '--no-examples']);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('(11 files, stdio by default, one hello tool)');
    expect(fs.existsSync(path.join(workDir, 'hi', 'src', 'hello', 'HelloTools.ts'))).toBe(true);
    expect(fs.existsSync(path.join(workDir, 'hi', 'src', 'notes'))).toBe(false);

    const withExamples = run(['notes']);
    expect(withExamples.stdout).not.toContain('hello tool');
    expect(fs.existsSync(path.join(workDir, 'notes', 'src', 'notes', 'NoteTools.ts'))).toBe(true);
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
