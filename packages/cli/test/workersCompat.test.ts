/**
 * `typemcp build --target workers` and Node's modules in the author's own code: without the
 * nodejs_compat flag the build stops and names the way out; with --nodejs-compat, or with
 * nodejs_compat in the project's wrangler configuration, `node:` imports stay imports for
 * workerd and the written wrangler.toml turns the flag on.
 */
import fs from 'node:fs';
import path from 'node:path';
import { buildCli, runCli } from './support';
import { compatibilityFlags } from '../src/commands/build';

// Plain CommonJS (no tsc): a Worker that waits with node:timers/promises before it answers.
const WORKER = `
const { setTimeout: sleep } = require('node:timers/promises');
const { McpServer } = require('@typemcp/core');
let handler;
module.exports = {
  async fetch(request) {
    handler ??= new McpServer({ name: 'waits', version: '1.0.0' }).fetchHandler({ stateless: true });
    await sleep(1);
    return handler(request);
  },
};
`;

let project: string;

beforeAll(() => {
  buildCli();
  // Inside the repository, so that the entry resolves the workspace's @typemcp/core.
  project = fs.mkdtempSync(path.join(__dirname, '.workers-compat-'));
  fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'waits', private: true, type: 'commonjs' }));
  fs.writeFileSync(path.join(project, 'worker.js'), WORKER);
}, 240_000);

afterAll(() => fs.rmSync(project, { recursive: true, force: true }));

beforeEach(() => {
  fs.rmSync(path.join(project, 'dist'), { recursive: true, force: true });
  fs.rmSync(path.join(project, 'wrangler.toml'), { force: true });
});

const build = (...flags: string[]) => runCli(['build', 'worker.js', '--no-tsc', '--target', 'workers', ...flags], project);
const bundle = () => fs.readFileSync(path.join(project, 'dist', 'bundle', 'worker.mjs'), 'utf8');
const wranglerToml = () => fs.readFileSync(path.join(project, 'dist', 'bundle', 'wrangler.toml'), 'utf8');

describe('typemcp build --target workers and node: imports', () => {
  it('stops on a node: import without nodejs_compat, naming the option and the wrangler flag', () => {
    const result = build();
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('Could not resolve "node:timers/promises"');
    expect(result.stderr).toContain(`node:timers/promises is one of Node's modules, which a Worker has only with the nodejs_compat flag: pass --nodejs-compat`);
    expect(result.stderr).toContain('compatibility_flags = ["nodejs_compat"]');
    expect(fs.existsSync(path.join(project, 'dist', 'bundle', 'worker.mjs'))).toBe(false);
  });

  it('leaves node: modules to workerd with --nodejs-compat, and writes the flag into wrangler.toml', () => {
    const result = build('--nodejs-compat');
    expect(result.stderr).not.toContain('Could not resolve');
    expect(result.status).toBe(0);
    expect(bundle()).toMatch(/from "node:timers\/promises"|require\("node:timers\/promises"\)|import\("node:timers\/promises"\)/);
    expect(compatibilityFlags(wranglerToml())).toEqual(['nodejs_compat']);
  });

  it("turns it on from the project's wrangler.toml", () => {
    fs.writeFileSync(path.join(project, 'wrangler.toml'), 'name = "waits"\n# compatibility_flags = ["other"]\ncompatibility_flags = [ "nodejs_compat" ]\n');
    const result = build();
    expect(result.stderr).not.toContain('Could not resolve');
    expect(result.status).toBe(0);
    expect(bundle()).toContain('node:timers/promises');
  });
});

describe("reading wrangler's compatibility_flags", () => {
  it('reads TOML and JSON(C), leaving comments out', () => {
    expect(compatibilityFlags('name = "x"\ncompatibility_flags = ["nodejs_compat", "nodejs_als"]\n')).toEqual(['nodejs_compat', 'nodejs_als']);
    expect(compatibilityFlags('compatibility_flags = [\n  "nodejs_compat",\n]\n')).toEqual(['nodejs_compat']);
    expect(compatibilityFlags('{\n  // "compatibility_flags": ["no"],\n  "name": "x", "compatibility_flags": ["nodejs_compat"]\n}')).toEqual(['nodejs_compat']);
    expect(compatibilityFlags('# compatibility_flags = ["nodejs_compat"]\nname = "x"\n')).toEqual([]);
    expect(compatibilityFlags('name = "x"\n')).toEqual([]);
  });
});
