import fs from 'node:fs';
import path from 'node:path';
import { once } from 'node:events';
import type { ChildProcess } from 'node:child_process';
import { launchFor, start } from '../launch';
import type { Output } from '../output';

export interface DevOptions {
  entry: string;
  transport: 'stdio' | 'http';
  port?: number;
  watch: boolean;
}

/** Id of the replayed initialize request, distinct from any id a client picks. */
const REPLAY_ID = 'typemcp-dev-replay';
const LIST_KINDS = ['tools', 'prompts', 'resources'] as const;
const DEBOUNCE_MS = 150;

/**
 * Runs a server from source and restarts it when a file under its folder changes. Over stdio
 * the command stands between the client and the server, so a restart keeps the client's
 * session: the client's initialize is replayed to the new process and the client is told
 * that every list may have changed.
 */
export async function dev(options: DevOptions, out: Output): Promise<number> {
  const launch = launchFor(options.entry, [`--${options.transport}`]);
  const env = options.port === undefined ? process.env : { ...process.env, PORT: String(options.port) };
  const watchedDir = path.dirname(launch.entry);
  const proxy = options.transport === 'stdio' ? new StdioSession() : undefined;
  let child: ChildProcess | undefined;
  let stopping = false;

  const run = () => {
    child = start(launch, proxy ? ['pipe', 'pipe', 'inherit'] : 'inherit', env);
    const current = child;
    proxy?.attach(current);
    current.on('exit', (code, signal) => {
      if (stopping || current !== child) return;
      out.info(out.dim(`[typemcp dev] server exited (${signal ?? `code ${code}`})${options.watch ? '; waiting for a change' : ''}`));
      if (!options.watch) finish(code ?? 1);
    });
  };
  const restart = async () => {
    const previous = child;
    child = undefined;
    if (previous) await stopChild(previous);
    out.info(out.dim(`[typemcp dev] change detected, restarting ${path.relative(process.cwd(), launch.entry)}`));
    run();
  };

  let finish!: (code: number) => void;
  const finished = new Promise<number>((resolve) => (finish = resolve));
  const shutdown = async (code: number) => {
    stopping = true;
    watcher?.close();
    if (child) await stopChild(child);
    finish(code);
  };
  process.once('SIGINT', () => void shutdown(130));
  process.once('SIGTERM', () => void shutdown(143));
  proxy?.onClientEnd(() => void shutdown(0));

  out.info(out.dim(`[typemcp dev] ${options.transport} server ${path.relative(process.cwd(), launch.entry)}${options.watch ? `, watching ${path.relative(process.cwd(), watchedDir) || '.'}` : ''}`));
  run();
  let watcher: fs.FSWatcher | undefined;
  if (options.watch) {
    let timer: NodeJS.Timeout | undefined;
    watcher = fs.watch(watchedDir, { recursive: true }, (_event, file) => {
      if (file && /(^|[/\\])(node_modules|dist)([/\\]|$)/.test(file)) return;
      clearTimeout(timer);
      timer = setTimeout(() => void restart(), DEBOUNCE_MS);
    });
  }
  return finished;
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
  await exited;
  clearTimeout(timer);
}

/** The client's side of a stdio conversation, kept across server restarts. */
class StdioSession {
  private initialize: Record<string, unknown> | undefined;
  private initialized = false;
  private listsDeclared = new Set<string>();
  private readonly inFlight = new Set<string>();
  private child: ChildProcess | undefined;
  /** Client messages that arrive while a new server is being brought up to date. */
  private held: string[] | undefined;
  private clientEnded: (() => void) | undefined;

  constructor() {
    readLines(process.stdin, (line) => this.fromClient(line), () => {
      this.child?.stdin?.end();
      this.clientEnded?.();
    });
  }

  onClientEnd(handler: () => void): void {
    this.clientEnded = handler;
  }

  attach(child: ChildProcess): void {
    const restarted = this.child !== undefined;
    this.child = child;
    child.stdin!.on('error', () => undefined);
    readLines(child.stdout!, (line) => this.fromServer(line, child), () => undefined);
    if (!restarted || !this.initialize) return;
    // Requests the old process never answered get an error instead of hanging.
    for (const id of this.inFlight) this.toClient({ jsonrpc: '2.0', id: JSON.parse(id), error: { code: -32603, message: 'The server restarted before answering' } });
    this.inFlight.clear();
    this.held = [];
    child.stdin!.write(`${JSON.stringify({ ...this.initialize, id: REPLAY_ID })}\n`);
  }

  private fromClient(line: string): void {
    let message: Record<string, unknown> | undefined;
    try {
      message = JSON.parse(line) as Record<string, unknown>;
    } catch {
      // Not ours to judge: the server answers it with a parse error.
    }
    if (message && typeof message === 'object' && !Array.isArray(message)) {
      if (message.method === 'initialize') this.initialize = message;
      if (message.method === 'notifications/initialized') this.initialized = true;
      if ('method' in message && 'id' in message) this.inFlight.add(JSON.stringify(message.id));
    }
    if (this.held) this.held.push(line);
    else this.child?.stdin?.write(`${line}\n`);
  }

  private fromServer(line: string, from: ChildProcess): void {
    if (from !== this.child) return;
    let message: Record<string, unknown> | undefined;
    try {
      message = JSON.parse(line) as Record<string, unknown>;
    } catch {
      message = undefined;
    }
    if (message && message.id === REPLAY_ID && !('method' in message)) {
      this.caughtUp(from);
      return;
    }
    if (message && 'id' in message && !('method' in message)) {
      this.inFlight.delete(JSON.stringify(message.id));
      const capabilities = (message.result as { capabilities?: Record<string, { listChanged?: boolean }> } | undefined)?.capabilities;
      if (capabilities && JSON.stringify(message.id) === JSON.stringify(this.initialize?.id)) {
        for (const kind of LIST_KINDS) if (capabilities[kind]?.listChanged) this.listsDeclared.add(kind);
      }
    }
    process.stdout.write(`${line}\n`);
  }

  /** The new server has the session's initialize: finish its handshake and refresh the client. */
  private caughtUp(child: ChildProcess): void {
    if (this.initialized) child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    for (const line of this.held ?? []) child.stdin!.write(`${line}\n`);
    this.held = undefined;
    for (const kind of this.listsDeclared) this.toClient({ jsonrpc: '2.0', method: `notifications/${kind}/list_changed` });
  }

  private toClient(message: Record<string, unknown>): void {
    process.stdout.write(`${JSON.stringify(message)}\n`);
  }
}

function readLines(stream: NodeJS.ReadableStream, onLine: (line: string) => void, onEnd: () => void): void {
  let buffered = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    buffered += chunk;
    let newline: number;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, newline).replace(/\r$/, '');
      buffered = buffered.slice(newline + 1);
      if (line.trim()) onLine(line);
    }
  });
  stream.on('end', () => {
    if (buffered.trim()) onLine(buffered);
    onEnd();
  });
}
