import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { StdioTransport } from '@typemcp/core';
import type { OutgoingMessage } from '@typemcp/core';
import type { JsonObject } from '../types';
import type { ClientTransport } from './ClientTransport';

/** A server started as a process that speaks MCP on its stdin and stdout (Node, Bun and Deno only). */
export interface StdioServerParameters {
  command: string;
  args?: string[];
  /** The child's environment; default: this process's. */
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** Where the child's stderr goes: this process's stderr (default), nowhere, or a pipe read through `stderr`. */
  stderr?: 'inherit' | 'ignore' | 'pipe';
}

/** How long a child may take to exit after its stdin closed, then after SIGTERM. */
const EXIT_GRACE_MS = 2000;

/**
 * Spawns a server and speaks newline-delimited JSON-RPC on its pipes. `close()` ends its
 * stdin, then sends SIGTERM after a grace period and SIGKILL after another; the child is
 * told SIGTERM if this process exits first.
 */
export class StdioClientTransport implements ClientTransport {
  onmessage?: (message: unknown) => void;
  onclose?: (error?: Error) => void;
  onerror?: (error: Error) => void;
  private child: ChildProcess | undefined;
  private transport: StdioTransport | undefined;
  private exited: Promise<void> | undefined;
  private closing = false;

  constructor(private readonly server: StdioServerParameters) {}

  /** The child's process id, once started. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** The child's stderr, with `stderr: 'pipe'`. */
  get stderr(): NodeJS.ReadableStream | null {
    return this.child?.stderr ?? null;
  }

  async start(): Promise<void> {
    const { command, args = [], env, cwd, stderr = 'inherit' } = this.server;
    const child = spawn(command, args, { cwd, env: env ?? process.env, stdio: ['pipe', 'pipe', stderr] });
    this.child = child;
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', (error) => reject(new Error(`Could not start "${command}": ${error.message}`)));
    });
    let gone = false;
    const lost = (why: string) => {
      if (gone) return;
      gone = true;
      this.onclose?.(this.closing ? undefined : new Error(why));
    };
    this.exited = new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        lost(`The server process exited (${signal ?? `code ${code}`})`);
        resolve();
      }),
    );
    const transport = new StdioTransport({ input: child.stdout!, output: child.stdin!, guardStdout: false });
    this.transport = transport;
    transport.onmessage = (line) => this.onmessage?.(line);
    transport.onclose = () => lost('The server process closed its output');
    transport.onerror = (error) => this.onerror?.(error);
    child.stdin!.on('error', () => undefined);
    await transport.start();
    const endWithUs = () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    };
    process.once('exit', endWithUs);
    child.once('exit', () => process.off('exit', endWithUs));
  }

  async send(message: JsonObject): Promise<void> {
    if (!this.transport) throw new Error('The server process is not running');
    await this.transport.send(message as unknown as OutgoingMessage);
  }

  /** Closes its stdin; SIGTERM after a grace period, SIGKILL after another. */
  async close(): Promise<void> {
    this.closing = true;
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    child.stdin?.end();
    await exitedWithin(this.exited!, EXIT_GRACE_MS);
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    await exitedWithin(this.exited!, EXIT_GRACE_MS);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}

function exitedWithin(exited: Promise<void>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([exited, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]).finally(() => clearTimeout(timer));
}
