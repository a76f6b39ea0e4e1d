import path from 'node:path';
import { once } from 'node:events';
import type { ChildProcess } from 'node:child_process';
import { launchFor, start } from '../launch';
import { UsageError } from '../UsageError';
import type { Output } from '../output';
import { startInspectorWeb } from './inspectorWeb';
import type { InspectorWeb } from './inspectorWeb';
import { SessionEndpoint } from './sessionEndpoint';
import { StdioSession } from './stdioSession';
import { watchTree } from './watchTree';
import type { TreeWatcher } from './watchTree';

export interface DevOptions {
  entry: string;
  transport: 'stdio' | 'http';
  port?: number;
  watch: boolean;
  /**
   * Open the session to the MCP Inspector's web UI instead of this command's stdin and stdout:
   * the session is served over Streamable HTTP on 127.0.0.1 and the Inspector, started
   * connected to it, stays connected across restarts (stdio only).
   */
  inspect?: boolean;
}

/** Changes within this many milliseconds make one restart (editors write a file in steps). */
const DEBOUNCE_MS = 150;
/** How long a server may take to finish by itself once its client is gone. */
const CLIENT_END_GRACE_MS = 5000;

/**
 * Runs a server from source and restarts it when a file under its folder changes. Over stdio
 * the command stands between the client and the server (see StdioSession), so a restart keeps
 * the client's session. With `inspect`, that client is the MCP Inspector's web UI, which reaches
 * the session through an HTTP endpoint on 127.0.0.1 (SessionEndpoint).
 */
export async function dev(options: DevOptions, out: Output): Promise<number> {
  if (options.inspect && options.transport !== 'stdio') throw new UsageError('--inspect serves the session of a stdio server to the Inspector; leave out --http');
  const launch = launchFor(options.entry, [`--${options.transport}`]);
  const env = options.port === undefined ? process.env : { ...process.env, PORT: String(options.port) };
  const entryName = path.relative(process.cwd(), launch.entry);
  const watchedDir = path.dirname(launch.entry);
  const status = (text: string) => out.info(out.dim(`[typemcp dev] ${text}`));

  let finish!: (code: number) => void;
  const finished = new Promise<number>((resolve) => (finish = resolve));
  let child: ChildProcess | undefined;
  let stopping = false;
  let clientGone = false;
  // The client is gone: the server, whose input just ended, may finish by itself (and a server
  // that failed to start says why and exits non-zero); only then is it stopped.
  const onClientEnd = async () => {
    clientGone = true;
    const current = child;
    if (current && current.exitCode === null && current.signalCode === null) {
      await Promise.race([once(current, 'exit'), new Promise((resolve) => setTimeout(resolve, CLIENT_END_GRACE_MS))]);
    }
    if (current?.exitCode) status(`server exited (exit code ${current.exitCode})`);
    void shutdown(current?.exitCode ? current.exitCode : 0);
  };
  const endpoint = options.inspect ? await SessionEndpoint.listen() : undefined;
  if (endpoint) endpoint.onConnect = (client) => status(`${client} connected`);
  const session =
    options.transport !== 'stdio'
      ? undefined
      : endpoint
        ? new StdioSession(endpoint.input, endpoint.output, () => undefined)
        : new StdioSession(process.stdin, process.stdout, () => void onClientEnd());

  const run = () => {
    const current = start(launch, session ? ['pipe', 'pipe', 'inherit'] : 'inherit', env);
    child = current;
    const pipes = session ? { stdin: current.stdin!, stdout: current.stdout! } : undefined;
    if (pipes) session!.attach(pipes);
    current.on('exit', (code, signal) => {
      if (stopping || clientGone || current !== child) return;
      const reason = signal ? `signal ${signal}` : `exit code ${code}`;
      if (pipes) session!.detach(pipes, reason);
      status(`server exited (${reason})${options.watch ? '; waiting for a change' : ''}`);
      if (!options.watch) void shutdown(code ?? 1);
    });
  };

  // One restart at a time; changes during a restart make one more.
  let restarting: Promise<void> | undefined;
  let again = false;
  const restart = async () => {
    if (restarting) {
      again = true;
      return;
    }
    restarting = (async () => {
      do {
        again = false;
        session?.pause();
        const previous = child;
        child = undefined;
        if (previous) await stopChild(previous);
        if (stopping) return;
        status(`change detected, restarting ${entryName}`);
        run();
      } while (again);
    })();
    await restarting;
    restarting = undefined;
  };

  let watcher: TreeWatcher | undefined;
  let inspector: InspectorWeb | undefined;
  const shutdown = async (code: number) => {
    if (stopping) return;
    stopping = true;
    watcher?.close();
    await Promise.all([child ? stopChild(child) : undefined, inspector?.stop(), endpoint?.close()]);
    finish(code);
  };
  const onSignal = (signal: NodeJS.Signals) => void shutdown(signal === 'SIGINT' ? 130 : 143);
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  status(`${options.transport} server ${entryName}${options.watch ? `, watching ${path.relative(process.cwd(), watchedDir) || '.'}` : ''}`);
  run();
  if (options.watch) {
    let timer: NodeJS.Timeout | undefined;
    watcher = watchTree(
      watchedDir,
      () => {
        clearTimeout(timer);
        timer = setTimeout(() => void restart(), DEBOUNCE_MS);
      },
      (error) => status(`cannot watch everything in ${path.relative(process.cwd(), watchedDir) || '.'}: ${error.message}`),
    );
  }
  if (endpoint) {
    try {
      inspector = await startInspectorWeb(endpoint.url, status);
    } catch (error) {
      out.error(error instanceof Error ? error.message : String(error));
      await shutdown(1);
    }
    if (stopping) await inspector?.stop();
    else if (inspector) {
      out.info(`${out.bold('MCP Inspector')} connected to ${entryName}: ${inspector.url}`);
      status(`open that page; the Inspector stays connected while the server restarts. Stop with Ctrl+C.`);
      void inspector.exited.then((exitCode) => {
        if (stopping) return;
        status(`the MCP Inspector exited (code ${exitCode})`);
        void shutdown(exitCode ? 1 : 0);
      });
    }
  }
  const code = await finished;
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  return code;
}

/** Ends a server: TERM, then KILL if it is still there after 3 s. */
async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
  await exited;
  clearTimeout(timer);
}
