/**
 * `npm create typemcp -- --runtime bun|deno|workers`, as a user runs it: the packed packages,
 * a project scaffolded by the packed create-typemcp outside the repository, installed from the
 * tarballs, then the project's own `npm test` on its own runtime (`bun test`, `deno test`,
 * and for Workers jest plus the bundle on workerd through `wrangler dev --local`) and its
 * production bundle. The runtimes come first on PATH, from test-support/runtimes (the pretest
 * installs them; Node 22 there is what wrangler needs).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
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
  const env = { ...outsideEnv(), PATH: `${runtimesBin}${path.delimiter}${process.env.PATH ?? ''}`, DENO_DIR: path.join(workDir, 'deno'), DENO_NO_UPDATE_CHECK: '1' };
  const result = spawnSync('npm', ['run', script], { cwd: projectDir, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const output = `${result.stdout}${result.stderr}`;
  if (result.status !== 0) throw new Error(`npm run ${script} (in ${projectDir}) exited with ${result.status ?? result.signal}\n${output}`);
  return output;
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
});
