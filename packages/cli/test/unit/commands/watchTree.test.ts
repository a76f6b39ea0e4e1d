import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { watchTree } from '../../../src/commands/watchTree';
import type { TreeWatcher } from '../../../src/commands/watchTree';

describe('watchTree', () => {
  let root: string;
  let watcher: TreeWatcher | undefined;
  let changed: string[];
  const errors: Error[] = [];

  beforeEach(() => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'typemcp-watch-')));
    for (const dir of ['src/deep', 'node_modules/pkg', 'dist', '.git']) fs.mkdirSync(path.join(root, dir), { recursive: true });
    changed = [];
    watcher = watchTree(root, (file) => changed.push(path.relative(root, file)), (error) => errors.push(error));
  });
  afterEach(() => {
    watcher?.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  /** Waits until a change to `file` was reported, or `timeoutMs`. */
  const reported = async (file: string, timeoutMs = 3000) => {
    for (let i = 0; i < timeoutMs / 50 && !changed.includes(file); i++) await new Promise((r) => setTimeout(r, 50));
    return changed.includes(file);
  };

  it('reports changes in the folder and its subfolders, new ones included', async () => {
    fs.writeFileSync(path.join(root, 'main.ts'), 'a');
    expect(await reported('main.ts')).toBe(true);
    fs.writeFileSync(path.join(root, 'src', 'deep', 'tool.ts'), 'b');
    expect(await reported(path.join('src', 'deep', 'tool.ts'))).toBe(true);
    fs.mkdirSync(path.join(root, 'src', 'added'));
    expect(await reported(path.join('src', 'added'))).toBe(true);
    fs.writeFileSync(path.join(root, 'src', 'added', 'new.ts'), 'c');
    expect(await reported(path.join('src', 'added', 'new.ts'))).toBe(true);
    expect(errors).toEqual([]);
  });

  it('ignores node_modules, dist and .git, and stops when closed', async () => {
    for (const dir of ['node_modules/pkg', 'dist', '.git']) fs.writeFileSync(path.join(root, dir, 'x.js'), 'x');
    fs.writeFileSync(path.join(root, 'node_modules', 'y.js'), 'y');
    fs.writeFileSync(path.join(root, 'marker.ts'), 'm');
    expect(await reported('marker.ts')).toBe(true);
    expect(changed.filter((file) => /^(node_modules|dist|\.git)/.test(file))).toEqual([]);

    watcher!.close();
    fs.writeFileSync(path.join(root, 'src', 'after.ts'), 'z');
    expect(await reported(path.join('src', 'after.ts'), 500)).toBe(false);
  });
});
