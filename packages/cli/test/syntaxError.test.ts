import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildCli, repoRoot, runCli } from './support';

jest.setTimeout(60_000);
beforeAll(buildCli);

describe('a syntax error under typemcp dev', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'typemcp-cli-syntax-'));
    fs.symlinkSync(path.join(repoRoot, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** What the command prints when the entry imports a file that does not parse. */
  function devRun(moduleType: 'commonjs' | 'module'): ReturnType<typeof runCli> {
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ type: moduleType }));
    fs.writeFileSync(path.join(dir, 'main.ts'), "import { tools } from './tools.js';\nconsole.error(tools);\n");
    fs.writeFileSync(path.join(dir, 'tools.ts'), 'export const tools = [;\n');
    // RUST_BACKTRACE=1 is what made swc add some thirty lines of its own stack.
    return runCli(['dev', 'main.ts', '--no-watch'], dir, { RUST_BACKTRACE: '1', RUST_LIB_BACKTRACE: '1' });
  }

  it.each(['commonjs', 'module'] as const)('shows swc\'s code frame and none of its backtrace (%s)', (moduleType) => {
    const result = devRun(moduleType);
    expect(result.status).toBe(1);
    // (An ES module's error crosses from the loader's thread as "SyntaxError [Error]".)
    expect(result.stderr).toMatch(/SyntaxError( \[Error\])?: x Expression expected/);
    expect(result.stderr).toContain(`,-[${path.join(dir, 'tools.ts')}:1:1]`);
    expect(result.stderr).toContain(' 1 | export const tools = [;');
    expect(result.stderr).toContain(`    at ${path.join(dir, 'tools.ts')}`);
    expect(result.stderr).not.toMatch(/Caused by:|Stack backtrace:|<unknown>|_ZN2v8|@swc\/core\/index\.js/);
    // The frame, Node's two lines of where it was thrown, and the command's own: no more.
    expect(result.stderr.trim().split('\n').length).toBeLessThan(20);
  });
});
