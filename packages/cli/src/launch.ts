import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import type { ChildProcess, StdioOptions } from 'node:child_process';
import { UsageError } from './UsageError';

/** How to start a server entry: node, plus the swc loader for TypeScript. */
export interface Launch {
  entry: string;
  args: string[];
}

/** The default entry of a project: its build when there is one, else its source. */
export function defaultEntry(cwd: string): string {
  const built = path.join(cwd, 'dist', 'main.js');
  return fs.existsSync(built) ? built : path.join(cwd, 'src', 'main.ts');
}

/** Node arguments that run `entry` (a .ts file through the swc loader matching its package's module type). */
export function launchFor(entryPath: string, serverArgs: string[]): Launch {
  const entry = path.resolve(entryPath);
  if (!fs.existsSync(entry)) {
    // A compiled entry that is missing is one not built yet: say how to make it.
    const source = /(^|[\\/])dist[\\/](.+)\.(c|m)?js$/.exec(entryPath);
    const hint = source ? `; build the project first (npm run build), or run the source: src/${source[2]}.${source[3] ?? ''}ts` : '';
    throw new UsageError(`${entryPath} does not exist${hint}`);
  }
  if (!/\.(ts|mts|cts)$/.test(entry)) return { entry, args: [entry, ...serverArgs] };
  const esm = entry.endsWith('.mts') || (!entry.endsWith('.cts') && packageType(path.dirname(entry)) === 'module');
  const loader = esm ? ['--import', path.join(__dirname, 'register', 'esm.js')] : ['-r', path.join(__dirname, 'register', 'cjs.js')];
  return { entry, args: [...loader, entry, ...serverArgs] };
}

export function start(launch: Launch, stdio: StdioOptions, env: NodeJS.ProcessEnv = process.env): ChildProcess {
  return spawn(process.execPath, launch.args, { stdio, env });
}

/** The `type` of the nearest package.json above `dir`. */
function packageType(dir: string): string | undefined {
  for (let current = dir; ; current = path.dirname(current)) {
    const manifest = path.join(current, 'package.json');
    if (fs.existsSync(manifest)) return (JSON.parse(fs.readFileSync(manifest, 'utf8')) as { type?: string }).type;
    if (path.dirname(current) === current) return undefined;
  }
}
