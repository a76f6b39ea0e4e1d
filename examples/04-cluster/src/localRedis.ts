import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

/** A redis-server this process started, for development: 127.0.0.1, nothing saved. */
export interface LocalRedis {
  url: string;
  port: number;
  pid: number;
  stop(): Promise<void>;
}

/** The redis-server binary on PATH (or /usr/bin, /usr/local/bin), or undefined. */
export function findRedisServer(): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(path.delimiter).filter(Boolean), '/usr/bin', '/usr/local/bin'];
  for (const dir of dirs) {
    const candidate = path.join(dir, 'redis-server');
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (data) => done(data.toString().startsWith('+PONG')));
    socket.on('error', () => done(false));
  });
}

/**
 * Starts redis-server on 127.0.0.1 and a free port, with nothing persisted, and resolves once
 * it answers PING. Fails with how to install it when redis-server is not there.
 */
export async function startLocalRedis(): Promise<LocalRedis> {
  const binary = findRedisServer();
  if (!binary) {
    throw new Error('redis-server was not found on PATH: install Redis (Debian/Ubuntu: apt-get install redis-server; macOS: brew install redis) or set REDIS_URL to a running one');
  }
  const port = await freePort();
  const child = spawn(binary, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--loglevel', 'warning'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let output = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const failed = new Promise<Error>((resolve) => child.once('error', resolve));
  const deadline = Date.now() + 10_000;
  for (;;) {
    const error = await Promise.race([failed, new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 25))]);
    if (error) throw new Error(`redis-server could not start: ${error.message}`);
    if (child.exitCode !== null) throw new Error(`redis-server exited (${child.exitCode}): ${output}`);
    if (await ping(port)) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`redis-server did not answer PING within 10 s: ${output}`);
    }
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    pid: child.pid!,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
