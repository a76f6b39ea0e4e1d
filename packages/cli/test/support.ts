import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';

export const repoRoot = path.resolve(__dirname, '..', '..', '..');
export const fixtures = path.join(__dirname, 'fixtures');
export const cliBin = path.join(repoRoot, 'packages', 'cli', 'dist', 'bin.js');

/** The CLI runs as users run it: compiled (its loaders are separate files its children load). */
export function buildCli(): void {
  const tsc = path.join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');
  const result = spawnSync(process.execPath, [tsc, '-b', path.join(repoRoot, 'packages', 'cli')], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`building the CLI failed:\n${result.stdout}${result.stderr}`);
}

export function runCli(args: string[], cwd = repoRoot, env: NodeJS.ProcessEnv = {}) {
  return spawnSync(process.execPath, [cliBin, ...args], { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', ...env }, timeout: 60_000 });
}

/** A copy of a fixture folder in a temp dir, with the repository's node_modules linked in. */
export function copyFixture(name: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `typemcp-cli-${name}-`));
  fs.cpSync(path.join(fixtures, name), dir, { recursive: true });
  fs.symlinkSync(path.join(repoRoot, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  return dir;
}

/** Newline-delimited JSON-RPC with a child process: send, and wait for a matching message. */
export class LineClient {
  readonly received: Array<Record<string, unknown>> = [];
  stderr = '';
  private waiters: Array<{ match: (m: Record<string, unknown>) => boolean; resolve: (m: Record<string, unknown>) => void }> = [];
  private buffered = '';

  constructor(readonly child: ChildProcessWithoutNullStreams) {
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      this.buffered += chunk;
      let newline: number;
      while ((newline = this.buffered.indexOf('\n')) >= 0) {
        const line = this.buffered.slice(0, newline);
        this.buffered = this.buffered.slice(newline + 1);
        const message = JSON.parse(line) as Record<string, unknown>;
        this.received.push(message);
        this.waiters = this.waiters.filter((w) => (w.match(message) ? (w.resolve(message), false) : true));
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
  }

  static spawn(args: string[], cwd: string): LineClient {
    return new LineClient(spawn(process.execPath, [cliBin, ...args], { cwd, env: { ...process.env, NO_COLOR: '1' } }));
  }

  send(message: Record<string, unknown>): void {
    this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  }

  /** The first message, received so far or later, that matches; `fresh`: only one received from now on. */
  waitFor(match: (m: Record<string, unknown>) => boolean, { fresh = false, timeoutMs = 15_000 } = {}): Promise<Record<string, unknown>> {
    const found = fresh ? undefined : this.received.find(match);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no matching message within ${timeoutMs} ms; stderr:\n${this.stderr}`)), timeoutMs);
      this.waiters.push({ match, resolve: (m) => (clearTimeout(timer), resolve(m)) });
    });
  }

  async request(id: number, method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>> {
    this.send(params ? { id, method, params } : { id, method });
    return this.waitFor((m) => m.id === id);
  }

  async initialize(): Promise<void> {
    await this.request(0, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'test', version: '1' } });
    this.send({ method: 'notifications/initialized' });
  }

  /** Ends stdin and waits for the process to exit; kills it if it does not. */
  async stop(): Promise<number | null> {
    this.child.stdin.end();
    const exited = new Promise<number | null>((resolve) => this.child.once('exit', (code) => resolve(code)));
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    const code = this.child.exitCode ?? (await exited);
    clearTimeout(timer);
    return code;
  }
}
