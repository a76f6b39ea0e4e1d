import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort, rawCommand, redisServerPath } from './redisServer';

/** A real Redis Cluster of three masters on 127.0.0.1, made for a test. */
export interface RedisCluster {
  nodes: Array<{ host: string; port: number }>;
  stop(): Promise<void>;
}

/**
 * Three `redis-server --cluster-enabled yes` on free ports (nothing persisted, cluster
 * configuration in a temporary folder), joined by `redis-cli --cluster create` with the 16384
 * slots spread over them; resolves once every node says `cluster_state:ok`.
 */
export async function startRedisCluster(): Promise<RedisCluster> {
  const binary = redisServerPath();
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'typemcp-redis-cluster-'));
  const children: ChildProcess[] = [];
  const nodes: Array<{ host: string; port: number }> = [];
  const stop = async () => {
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGTERM');
            setTimeout(() => child.exitCode === null && child.kill('SIGKILL'), 5000).unref();
          }),
      ),
    );
    fs.rmSync(folder, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < 3; i++) {
      const port = await freePort();
      const args = ['--port', String(port), '--bind', '127.0.0.1', '--cluster-enabled', 'yes', '--cluster-config-file', path.join(folder, `nodes-${port}.conf`), '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--loglevel', 'warning', '--dir', folder];
      children.push(spawn(binary, args, { stdio: 'ignore' }));
      nodes.push({ host: '127.0.0.1', port });
    }
    for (const { port } of nodes) {
      for (let attempt = 0; ; attempt++) {
        try {
          if ((await rawCommand(port, 'PING', 500)) === '+PONG') break;
        } catch {
          if (attempt > 100) throw new Error(`cluster node ${port} did not answer PING`);
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    const cli = path.join(path.dirname(binary), 'redis-cli');
    const created = spawnSync(cli, ['--cluster', 'create', ...nodes.map(({ host, port }) => `${host}:${port}`), '--cluster-replicas', '0', '--cluster-yes'], { encoding: 'utf8', timeout: 30_000 });
    if (created.status !== 0) throw new Error(`redis-cli --cluster create failed:\n${created.stdout}${created.stderr}`);
    for (const { port } of nodes) {
      for (let attempt = 0; ; attempt++) {
        const info = await rawInfo(port);
        if (info.includes('cluster_state:ok')) break;
        if (attempt > 200) throw new Error(`cluster node ${port} is not ok:\n${info}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    return { nodes, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** CLUSTER INFO of one node (a bulk reply: read whole). */
function rawInfo(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let data = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(data);
    }, 500);
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write('CLUSTER INFO\r\n'));
    socket.on('data', (chunk: string) => {
      data += chunk;
      if (data.includes('cluster_state:')) {
        clearTimeout(timer);
        socket.destroy();
        resolve(data);
      }
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}
