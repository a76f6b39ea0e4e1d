import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The file in an owned folder that names the process that made it. */
export const OWNER_FILE = '.typemcp-test-owner';
/** A folder of the prefix without an owner file (made before owners were written) is stale after this long. */
const UNOWNED_STALE_MS = 60 * 60_000;

/**
 * A temporary folder this test process owns, `<tmp>/<prefix>XXXXXX`: made after removing the
 * folders of that prefix whose process is gone (a run interrupted with Ctrl+C, or killed, leaves
 * its folder behind), and removed when this process exits or is stopped by SIGINT, SIGTERM or
 * SIGHUP. Folders of runs still going (another person's, on a shared machine) are left alone.
 */
export function ownedTempDir(prefix: string): string {
  sweepStale(prefix);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  fs.writeFileSync(path.join(dir, OWNER_FILE), String(process.pid));
  const remove = () => fs.rmSync(dir, { recursive: true, force: true });
  process.once('exit', remove);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const onSignal = () => {
      remove();
      // Then end as the signal would have: the default action, once this listener is gone.
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    };
    process.once(signal, onSignal);
  }
  return dir;
}

/** Removes the folders of `prefix` whose owner process no longer runs. */
export function sweepStale(prefix: string): string[] {
  const swept: string[] = [];
  for (const name of fs.readdirSync(os.tmpdir())) {
    if (!name.startsWith(prefix) || !/^[A-Za-z0-9]{6}$/.test(name.slice(prefix.length))) continue;
    const dir = path.join(os.tmpdir(), name);
    if (!isStale(dir)) continue;
    fs.rmSync(dir, { recursive: true, force: true });
    swept.push(dir);
  }
  return swept;
}

function isStale(dir: string): boolean {
  let owner: number;
  try {
    owner = Number(fs.readFileSync(path.join(dir, OWNER_FILE), 'utf8'));
  } catch {
    try {
      return Date.now() - fs.statSync(dir).mtimeMs > UNOWNED_STALE_MS;
    } catch {
      return false;
    }
  }
  if (!Number.isInteger(owner) || owner <= 0) return true;
  try {
    process.kill(owner, 0);
    return false;
  } catch (error) {
    // EPERM: the process runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
