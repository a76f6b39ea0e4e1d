import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { OWNER_FILE, ownedTempDir } from '../../../test-support/ownedTempDir';

const support = path.join(__dirname, '..', '..', '..', 'test-support');
/** One prefix per run of this file, so that only its own folders are swept. */
const prefix = `typemcp-owned-${process.pid}-`;

/** A process that makes an owned folder, prints it, and waits to be stopped. */
async function owner(): Promise<{ child: ChildProcessWithoutNullStreams; dir: string; exited: Promise<NodeJS.Signals | null> }> {
  const script = `const { ownedTempDir } = require(${JSON.stringify(path.join(support, 'ownedTempDir.ts'))}); console.log(ownedTempDir(${JSON.stringify(prefix)})); setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['-r', path.join(support, 'runTs.js'), '-e', script]);
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
  const dir = await new Promise<string>((resolve) => child.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString().trim())));
  return { child, dir, exited };
}

describe('the temporary folder of a test run', () => {
  it('is removed when its run is interrupted (SIGINT, SIGTERM), and the run still ends by the signal', async () => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      const { child, dir, exited } = await owner();
      expect(fs.readFileSync(path.join(dir, OWNER_FILE), 'utf8')).toBe(String(child.pid));
      child.kill(signal);
      expect(await exited).toBe(signal);
      expect(fs.existsSync(dir)).toBe(false);
    }
  });

  it('left behind by a killed run, is swept by the next one; a running one\'s is kept', async () => {
    const killed = await owner();
    killed.child.kill('SIGKILL');
    await killed.exited;
    expect(fs.existsSync(killed.dir)).toBe(true);
    const running = await owner();
    try {
      const mine = ownedTempDir(prefix);
      expect(fs.existsSync(killed.dir)).toBe(false);
      expect(fs.existsSync(running.dir)).toBe(true);
      expect(fs.readFileSync(path.join(mine, OWNER_FILE), 'utf8')).toBe(String(process.pid));
      fs.rmSync(mine, { recursive: true, force: true });
    } finally {
      running.child.kill('SIGTERM');
      await running.exited;
    }
    expect(fs.existsSync(running.dir)).toBe(false);
  });
});
