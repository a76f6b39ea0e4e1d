import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';

/** A server process of a test's: its URL once it printed one, and a stop that waits for its exit. */
export interface ChildServer {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts `command args` and waits for it to print `http://127.0.0.1:<port>/…` (on stdout or
 * stderr). Stopped with SIGTERM by its PID, SIGKILL if it lingers.
 */
export async function startHttpServer(command: string, args: string[], env: NodeJS.ProcessEnv = process.env, timeoutMs = 30_000): Promise<ChildServer> {
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'], env });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL within ${timeoutMs} ms:\n${output}`)), timeoutMs);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const found = /http:\/\/127\.0\.0\.1:\d+\/[\w/-]*/.exec(output);
      if (found) {
        clearTimeout(timer);
        resolve(found[0]);
      }
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code}) before printing its URL:\n${output}`));
    });
  });
  return {
    url,
    child,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(timer);
    },
  };
}
