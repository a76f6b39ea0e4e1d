import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { StdioTransport } from '@typemcp/core';
import type { OutgoingMessage } from '@typemcp/core';
import type { ClientChannel, JsonRpcMessage } from './channel';

/** An upstream started as a process that speaks MCP on its stdin and stdout. */
export interface StdioUpstream {
  command: string;
  args?: string[];
  /** The child's environment; default: this process's. */
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** Where the child's stderr goes: this process's stderr (default), or nowhere. */
  stderr?: 'inherit' | 'ignore';
}

/** How long a child may take to exit after its stdin closed, then after SIGTERM. */
const EXIT_GRACE_MS = 2000;

/** A child process as the channel: newline-delimited JSON-RPC on its pipes. */
export class StdioChannel implements ClientChannel {
  onmessage?: (message: JsonRpcMessage) => void;
  onclose?: (error: Error) => void;
  private child: ChildProcess | undefined;
  private transport: StdioTransport | undefined;
  private exited: Promise<void> | undefined;
  private closing = false;

  constructor(private readonly upstream: StdioUpstream) {}

  async start(): Promise<void> {
    const { command, args = [], env, cwd, stderr = 'inherit' } = this.upstream;
    const child = spawn(command, args, { cwd, env: env ?? process.env, stdio: ['pipe', 'pipe', stderr] });
    this.child = child;
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', (error) => reject(new Error(`could not start "${command}": ${error.message}`)));
    });
    let gone = false;
    const lost = (why: string) => {
      if (gone) return;
      gone = true;
      if (!this.closing) this.onclose?.(new Error(why));
    };
    this.exited = new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        lost(`the upstream process exited (${signal ?? `code ${code}`})`);
        resolve();
      }),
    );
    const transport = new StdioTransport({ input: child.stdout!, output: child.stdin!, guardStdout: false });
    this.transport = transport;
    // Lines arrive as text: the server side parses them where it classifies them; here, a line that is not an object is dropped.
    transport.onmessage = (line) => {
      let message: unknown;
      try {
        message = typeof line === 'string' ? JSON.parse(line) : line;
      } catch {
        return;
      }
      if (typeof message === 'object' && message !== null && !Array.isArray(message)) this.onmessage?.(message as JsonRpcMessage);
    };
    // Its stdout closing is the first sign of a process that died: before its exit event.
    transport.onclose = () => lost('the upstream process closed its output');
    transport.onerror = () => undefined;
    child.stdin!.on('error', () => undefined);
    await transport.start();
    // The child keeps this process alive only while a request waits: a proxy served on stdio
    // ends when its own input does, and the child, its input closed, ends after it (told with
    // SIGTERM when this process exits before it did).
    this.hold(false);
    const endWithUs = () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    };
    process.once('exit', endWithUs);
    child.once('exit', () => process.off('exit', endWithUs));
  }

  send(message: JsonRpcMessage): void | Promise<void> {
    if (!this.transport) return Promise.reject(new Error('the upstream process is not running'));
    return this.transport.send(message as unknown as OutgoingMessage);
  }

  /** The child and its pipes keep this process alive only while a request waits for an answer. */
  hold(waiting: boolean): void {
    const child = this.child;
    if (!child) return;
    for (const handle of [child, child.stdin, child.stdout] as unknown as Array<{ ref?: () => void; unref?: () => void }>) {
      if (waiting) handle.ref?.();
      else handle.unref?.();
    }
  }

  /** Closes its stdin; SIGTERM after a grace period, SIGKILL after another. */
  async close(): Promise<void> {
    this.closing = true;
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    // Held while closing: the process waits for the child's end instead of exiting under it.
    child.ref();
    child.stdin?.end();
    await exitedWithin(this.exited!, EXIT_GRACE_MS);
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    await exitedWithin(this.exited!, EXIT_GRACE_MS);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }

  /** The child's process id, while it runs. */
  get pid(): number | undefined {
    return this.child?.pid;
  }
}

/** Resolves when the child exited or `ms` passed, whichever is first; the timer goes with it. */
function exitedWithin(exited: Promise<void>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([exited, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]).finally(() => clearTimeout(timer));
}
