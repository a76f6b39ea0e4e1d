/**
 * `npm create typemcp -- --runtime bun|deno|workers`, as a user runs it: the packed packages,
 * a project scaffolded by the packed create-typemcp outside the repository, installed from the
 * tarballs, then the project's own `npm test` on its own runtime (`bun test`, `deno test`,
 * and for Workers jest plus the bundle on workerd through `wrangler dev --local`) and its
 * production bundle. Bun and Deno come first on PATH, from test-support/runtimes (the pretest
 * installs them). A Workers project runs on the Node running this test (20): its devDependency
 * node@22 is what runs wrangler, as a user on Node 20 has it; its `npm start` answers over HTTP
 * and its `npm run inspect` lists the tools.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import net from 'node:net';
import { outsideEnv, runOutside } from '../../../test-support/outsideRepository';
import { installFromTarballs, packPackages } from '../../../test-support/packedPackages';
import type { Tarball } from '../../../test-support/packedPackages';

jest.setTimeout(300_000);

const runtimesBin = path.resolve(__dirname, '..', '..', '..', 'test-support', 'runtimes', 'node_modules', '.bin');
const PACKAGES = ['core', 'testing', 'cli', 'create-typemcp'] as const;

let workDir: string;
let tarballs: Record<(typeof PACKAGES)[number], Tarball>;

beforeAll(() => {
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'typemcp-runtimes-e2e-'));
  const packDir = path.join(workDir, 'tarballs');
  fs.mkdirSync(packDir);
  tarballs = packPackages(PACKAGES, packDir);
});

afterAll(() => {
  if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
});

/** A script of the project with the runtimes first on PATH; everything it printed. */
function runScript(projectDir: string, script: string): string {
  const env = scriptEnv(projectDir);
  const result = spawnSync('npm', ['run', script], { cwd: projectDir, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const output = `${result.stdout}${result.stderr}`;
  if (result.status !== 0) throw new Error(`npm run ${script} (in ${projectDir}) exited with ${result.status ?? result.signal}\n${output}`);
  return output;
}

/** The environment of a project's scripts: Bun's and Deno's binaries first on PATH; a Workers project brings its own Node 22. */
function scriptEnv(projectDir: string): NodeJS.ProcessEnv {
  const workers = fs.existsSync(path.join(projectDir, 'src', 'worker.ts'));
  return {
    ...outsideEnv(),
    PATH: workers ? (process.env.PATH ?? '') : `${runtimesBin}${path.delimiter}${process.env.PATH ?? ''}`,
    DENO_DIR: path.join(workDir, 'deno'),
    DENO_NO_UPDATE_CHECK: '1',
    // No metrics, update check or Request.cf download for wrangler.
    CI: 'true',
    WRANGLER_SEND_METRICS: 'false',
    CLOUDFLARE_CF_FETCH_ENABLED: 'false',
  };
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

describe.each([
  ['bun', /8 pass\n 0 fail/, 'server.mjs'],
  ['deno', /ok \| 5 passed \| 0 failed/, 'server.mjs'],
  ['workers', /# pass 1\n# fail 0/, 'worker.mjs'],
] as const)('a %s project', (runtime, passed, bundle) => {
  let projectDir: string;

  beforeAll(() => {
    runOutside('npm', ['exec', '--yes', `--package=${tarballs['create-typemcp'].file}`, '--', 'create-typemcp', `my-${runtime}-server`, '--runtime', runtime, '--transport', 'http'], workDir);
    projectDir = path.join(workDir, `my-${runtime}-server`);
    installFromTarballs(projectDir, tarballs);
  });

  it('says in its README the one command that runs it locally, and has no file of another runtime', () => {
    const readme = fs.readFileSync(path.join(projectDir, 'README.md'), 'utf8');
    const command = { bun: 'bun run src/main.ts --http', deno: 'deno task start --http', workers: 'npm start' }[runtime];
    expect(readme).toContain(command);
    expect(fs.existsSync(path.join(projectDir, 'overlay.json'))).toBe(false);
    expect(fs.existsSync(path.join(projectDir, 'src', 'main.ts'))).toBe(runtime !== 'workers');
    expect(fs.existsSync(path.join(projectDir, 'jest.config.cjs'))).toBe(runtime === 'workers');
  });

  it('passes its own tests on its own runtime', () => {
    expect(runScript(projectDir, 'test')).toMatch(passed);
  });

  it('builds its production bundle for its runtime', () => {
    const output = runScript(projectDir, 'bundle');
    expect(output).toMatch(/compiled \d+ validators/);
    expect(fs.existsSync(path.join(projectDir, 'dist', 'bundle', bundle))).toBe(true);
  });

  if (runtime === 'workers') {
    it('runs wrangler on Node 22 from its devDependency node@22, where node is Node 20', () => {
      expect(process.version).toMatch(/^v20\./);
      const version = spawnSync('npx', ['wrangler', '--version'], { cwd: projectDir, env: scriptEnv(projectDir), encoding: 'utf8' });
      expect(`${version.stdout}${version.stderr}`).toMatch(/\b4\.164\.0\b/);
      expect(version.status).toBe(0);
    });

    it('lists its tools with npm run inspect', () => {
      const output = runScript(projectDir, 'inspect');
      expect(output).toMatch(/Tools \(2\)\n {2}add_note/);
    });

    it('serves the Worker over HTTP with npm start', async () => {
      const port = await freePort();
      const child = spawn('npm', ['start', '--', '--port', String(port), '--inspector-port', '0'], { cwd: projectDir, env: scriptEnv(projectDir), detached: true });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      try {
        const url = `http://127.0.0.1:${port}/mcp`;
        let response: Response | undefined;
        for (const deadline = Date.now() + 120_000; !response; ) {
          if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}:\n${output}`);
          try {
            response = await fetch(url, {
              method: 'POST',
              headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
              body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'e2e', version: '1.0.0' } } }),
            });
          } catch {
            if (Date.now() > deadline) throw new Error(`npm start did not answer in 120 s:\n${output}`);
            await new Promise((resolve) => setTimeout(resolve, 250));
          }
        }
        expect(response.status).toBe(200);
        expect(await response.text()).toContain(`"name":"my-workers-server"`);
      } finally {
        if (child.exitCode === null) process.kill(-child.pid!, 'SIGTERM');
      }
    });
  }
});
