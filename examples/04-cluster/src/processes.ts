import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';

/** A replica process started by `spawnReplica`. */
export interface ReplicaProcess {
  replicaId: string;
  pid: number;
  port: number;
  /** `http://127.0.0.1:<port>/mcp` */
  url: string;
  child: ChildProcess;
  /** Resolves when the process has exited. */
  exited: Promise<void>;
  /** SIGTERM to its PID (SIGKILL after `graceMs`, default 5 s); resolves once it has exited. */
  stop(graceMs?: number): Promise<void>;
}

export interface SpawnReplicaOptions {
  replicaId: string;
  /** The Redis the replicas share; or `redisCluster`, the nodes of a Redis Cluster. */
  redisUrl?: string;
  redisCluster?: string[];
  requestStateSecret: string;
  /** More environment (TASK_LEASE_MS…); the parent's environment is passed on too. */
  env?: Record<string, string>;
  /** The replica's entry point: replica.js (or .ts) beside this file by default. */
  script?: string;
  /** Node options before the script: this process's own by default (e.g. a require hook). */
  nodeArgs?: string[];
  /** Where its stderr goes (default: this process's stderr). */
  stderr?: 'inherit' | 'pipe' | 'ignore';
  timeoutMs?: number;
}

/** Spawns one replica (`replica.ts`) on a free port and resolves once it serves. */
export function spawnReplica(options: SpawnReplicaOptions): Promise<ReplicaProcess> {
  const script = options.script ?? path.join(__dirname, `replica${path.extname(__filename)}`);
  const child = spawn(process.execPath, [...(options.nodeArgs ?? process.execArgv), script], {
    env: {
      ...process.env,
      ...options.env,
      ...(options.redisCluster ? { REDIS_CLUSTER: options.redisCluster.join(',') } : { REDIS_URL: options.redisUrl! }),
      REQUEST_STATE_SECRET: options.requestStateSecret,
      REPLICA_ID: options.replicaId,
      PORT: '0',
      CLOSE_ON_STDIN_END: '1',
    },
    stdio: ['pipe', 'pipe', options.stderr ?? 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.stdin!.on('error', () => undefined);
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`replica ${options.replicaId} did not start within ${options.timeoutMs ?? 30_000} ms: ${output}`));
    }, options.timeoutMs ?? 30_000);
    const onExit = (code: number | null, signal: string | null) => {
      clearTimeout(timer);
      reject(new Error(`replica ${options.replicaId} exited (${code ?? signal}) before it served: ${output}`));
    };
    child.once('exit', onExit);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      output += chunk;
      const match = /LISTENING (\d+)/.exec(output);
      if (!match) return;
      clearTimeout(timer);
      child.off('exit', onExit);
      child.stdout!.removeAllListeners('data');
      child.stdout!.resume();
      const port = Number(match[1]);
      let stopping: Promise<void> | undefined;
      resolve({
        replicaId: options.replicaId,
        pid: child.pid!,
        port,
        url: `http://127.0.0.1:${port}/mcp`,
        child,
        exited,
        stop(graceMs = 5000) {
          stopping ??= (async () => {
            if (child.exitCode === null && child.signalCode === null) {
              child.kill('SIGTERM');
              const killer = setTimeout(() => child.kill('SIGKILL'), graceMs);
              await exited;
              clearTimeout(killer);
            }
            child.stdin!.destroy();
          })();
          return stopping;
        },
      });
    });
  });
}
