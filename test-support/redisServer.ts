import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

/** A redis-server started for a test: bound to 127.0.0.1, nothing persisted. */
export interface RedisServer {
  /** `redis://127.0.0.1:<port>` */
  url: string;
  port: number;
  pid: number;
  /** Stops the server (SIGTERM to its PID, SIGKILL after 5 s) and waits until it has exited. */
  stop(): Promise<void>;
}

/** Where redis-server is: /usr/bin/redis-server, or on PATH. */
export function redisServerPath(): string {
  const candidates = ['/usr/bin/redis-server', ...(process.env.PATH ?? '').split(path.delimiter).filter(Boolean).map((dir) => path.join(dir, 'redis-server'))];
  for (const candidate of candidates) {
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // not there
    }
  }
  throw new Error('redis-server is not installed: the @typemcp/redis tests need a real Redis. Install the Debian package: apt-get install redis-server');
}

/** A port nobody listens on now (the kernel's pick for listen(0)). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Sends one inline command on a fresh connection and resolves with the first reply line. */
export function rawCommand(port: number, command: string, timeoutMs = 1000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let data = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`redis on port ${port} did not answer ${command} within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(`${command}\r\n`));
    socket.on('data', (chunk: string) => {
      data += chunk;
      if (data.includes('\r\n')) {
        clearTimeout(timer);
        socket.destroy();
        resolve(data.slice(0, data.indexOf('\r\n')));
      }
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      socket.destroy();
      reject(error);
    });
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

async function startOn(binary: string, port: number): Promise<RedisServer | 'port-taken'> {
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'yes', '--daemonize', 'no', '--loglevel', 'warning'];
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const spawnError = new Promise<Error>((resolve) => child.once('error', resolve));
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      if (/address already in use|EADDRINUSE/i.test(output)) return 'port-taken';
      throw new Error(`redis-server exited (${child.exitCode ?? child.signalCode}) before answering PING:\n${output}`);
    }
    const failed = await Promise.race([spawnError, new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 20))]);
    if (failed) throw new Error(`redis-server could not be started (${failed.message}); install it with apt-get install redis-server`);
    try {
      if ((await rawCommand(port, 'PING', 500)) === '+PONG') break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      await exited(child);
      if (/address already in use/i.test(output)) return 'port-taken';
      throw new Error(`redis-server on port ${port} did not answer PING within 10 s:\n${output}`);
    }
  }
  const pid = child.pid!;
  let stopping: Promise<void> | undefined;
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    pid,
    stop() {
      stopping ??= (async () => {
        if (child.exitCode === null && child.signalCode === null) {
          process.kill(pid, 'SIGTERM');
          const killer = setTimeout(() => child.exitCode === null && child.signalCode === null && process.kill(pid, 'SIGKILL'), 5000);
          await exited(child);
          clearTimeout(killer);
        }
        child.stdout!.destroy();
        child.stderr!.destroy();
      })();
      return stopping;
    },
  };
}

/**
 * Starts a real redis-server on 127.0.0.1 and a free port, with no config file and nothing
 * saved (`--save '' --appendonly no`), and resolves once it answers PING. Fails (it never
 * skips) when redis-server is not installed.
 */
export async function startRedis(): Promise<RedisServer> {
  const binary = redisServerPath();
  for (let attempt = 0; attempt < 10; attempt++) {
    const started = await startOn(binary, await freePort());
    if (started !== 'port-taken') return started;
  }
  throw new Error('redis-server: no free port after 10 attempts');
}

/** The number of calls of each command the server ran since the last reset: `INFO commandstats`. */
export async function commandCounts(port: number): Promise<Record<string, number>> {
  const info = await infoCommandStats(port);
  const counts: Record<string, number> = {};
  for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) counts[match[1]] = Number(match[2]);
  return counts;
}

/** Zeroes the command counters (`CONFIG RESETSTAT`). */
export async function resetCommandCounts(port: number): Promise<void> {
  const reply = await rawCommand(port, 'CONFIG RESETSTAT');
  if (reply !== '+OK') throw new Error(`CONFIG RESETSTAT answered ${reply}`);
}

/**
 * Counts the commands Redis runs while `work` runs (commands called by scripts included,
 * as INFO counts them; the INFO and CONFIG commands of the count itself excluded).
 * Run nothing else against the server meanwhile.
 */
export async function countCommands(port: number, work: () => Promise<unknown>): Promise<{ total: number; byCommand: Record<string, number> }> {
  await resetCommandCounts(port);
  await work();
  const byCommand = await commandCounts(port);
  delete byCommand.info;
  delete byCommand.config;
  delete byCommand['config|resetstat'];
  const total = Object.values(byCommand).reduce((sum, n) => sum + n, 0);
  return { total, byCommand };
}

function infoCommandStats(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let data = '';
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write('INFO commandstats\r\n'));
    socket.on('data', (chunk: string) => {
      data += chunk;
      const header = /^\$(\d+)\r\n/.exec(data);
      if (header && Buffer.byteLength(data) >= header[0].length + Number(header[1]) + 2) {
        socket.destroy();
        resolve(data.slice(header[0].length, header[0].length + Number(header[1])));
      }
    });
    socket.on('error', reject);
  });
}
