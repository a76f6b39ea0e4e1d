import { spawn } from 'node:child_process';
import path from 'node:path';

export interface NotesProcess {
  url: string;
  pid: number;
  /** SIGTERM, then SIGKILL after `graceMs` (default 5 s); resolves once it has exited. */
  stop(graceMs?: number): Promise<void>;
}

export interface SpawnNotesOptions {
  apiKey: string;
  /** The entry point: notes/main.js (or .ts) beside this file by default. */
  script?: string;
  /** Node options before the script: this process's own by default (e.g. a require hook). */
  nodeArgs?: string[];
  /** Where its stderr goes (default: this process's stderr). */
  stderr?: 'inherit' | 'ignore';
  timeoutMs?: number;
}

/** Starts the notes service in a process of its own, on a free port; resolves once it serves. */
export function spawnNotes(options: SpawnNotesOptions): Promise<NotesProcess> {
  const script = options.script ?? path.join(__dirname, 'notes', `main${path.extname(__filename)}`);
  const timeoutMs = options.timeoutMs ?? 30_000;
  const child = spawn(process.execPath, [...(options.nodeArgs ?? process.execArgv), script], {
    // The key goes in the environment, not on the command line where `ps` shows it.
    env: { ...process.env, NOTES_API_KEY: options.apiKey, PORT: '0', CLOSE_ON_STDIN_END: '1' },
    stdio: ['pipe', 'pipe', options.stderr ?? 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.stdin!.on('error', () => undefined);
  return new Promise((resolve, reject) => {
    let output = '';
    const fail = (why: string) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`the notes service ${why}: ${output.trim() || 'no output'}`));
    };
    const timer = setTimeout(() => fail(`did not start within ${timeoutMs} ms`), timeoutMs);
    const onExit = (code: number | null, signal: string | null) => fail(`exited (${code ?? signal}) before it served`);
    child.once('exit', onExit);
    child.once('error', (error) => fail(`could not start: ${error.message}`));
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      output += chunk;
      const match = /LISTENING (\S+)/.exec(output);
      if (!match) return;
      clearTimeout(timer);
      child.off('exit', onExit);
      child.stdout!.removeAllListeners('data');
      child.stdout!.resume();
      let stopping: Promise<void> | undefined;
      resolve({
        url: match[1],
        pid: child.pid!,
        stop: (graceMs = 5000) =>
          (stopping ??= (async () => {
            if (child.exitCode === null && child.signalCode === null) {
              child.kill('SIGTERM');
              const killer = setTimeout(() => child.kill('SIGKILL'), graceMs);
              await exited;
              clearTimeout(killer);
            }
            child.stdin!.destroy();
          })()),
      });
    });
  });
}
