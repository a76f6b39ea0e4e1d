import path from 'node:path';
import { spawnSync } from 'node:child_process';

// @typemcp/testing has no jest globals: the same kind of test passes under vitest.
// --no-cache: vitest would otherwise write its results cache into the fixture's node_modules.
it('works under vitest', () => {
  const repoRoot = path.resolve(__dirname, '..', '..', '..');
  const project = path.join(__dirname, 'vitest-project');
  const result = spawnSync(
    process.execPath,
    [path.join(repoRoot, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--config', path.join(project, 'vitest.config.mts'), '--reporter', 'verbose', '--no-cache'],
    { cwd: project, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', CI: 'true' }, timeout: 60_000 },
  );
  const output = `${result.stdout}${result.stderr}`;
  expect({ status: result.status, output }).toEqual({ status: 0, output: expect.stringMatching(/Tests +1 passed \(1\)/) });
  expect(output).toContain('a server tested under vitest > lists and calls its tool');
}, 60_000);
