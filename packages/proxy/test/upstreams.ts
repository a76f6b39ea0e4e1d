import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { runTsPath } from '../../../test-support/spawnServer';

/** A fixture server (a file of fixtures/), as the command a stdio upstream runs. */
export function fixtureCommand(fixture: string) {
  return { command: process.execPath, args: ['-r', runTsPath, path.join(__dirname, 'fixtures', fixture), '--stdio'], stderr: 'ignore' as const };
}

/** The fixture server, as the command a stdio upstream runs. */
export const upstreamCommand = fixtureCommand('upstream.ts');

/** A fixture server (default: the fixture server) over HTTP on 127.0.0.1 (a port of its own choosing unless given), in its own process. */
export interface HttpUpstreamProcess {
  url: string;
  port: number;
  child: ChildProcess;
  /** Ends the process at once (SIGKILL) and waits for it to be gone. */
  kill(): Promise<void>;
}

export async function startHttpUpstream(port = 0, fixture = 'upstream.ts'): Promise<HttpUpstreamProcess> {
  const child = spawn(process.execPath, ['-r', runTsPath, path.join(__dirname, 'fixtures', fixture), '--http', String(port)], { stdio: ['ignore', 'pipe', 'ignore'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const found = /listening (\S+)/.exec(out);
      if (found) resolve(found[1]);
    });
    child.once('exit', (code) => reject(new Error(`the upstream exited (${code}) before listening`)));
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    url,
    port: Number(new URL(url).port),
    child,
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
