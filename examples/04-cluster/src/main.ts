import { randomBytes } from 'node:crypto';
import { startLocalRedis } from './localRedis';
import type { LocalRedis } from './localRedis';
import { spawnReplica } from './processes';
import type { ReplicaProcess } from './processes';
import { startProxy } from './proxy';
import type { Proxy } from './proxy';

/**
 * `npm start`: a cluster on this machine. With REDIS_URL unset, a local redis-server starts on
 * a free port; then REPLICAS (default 3) replica processes, and the round-robin proxy on PORT
 * (default 3000) in front of them. Ctrl+C (or SIGTERM) stops everything it started.
 */
async function main(): Promise<void> {
  const say = (line: string) => process.stderr.write(`board-cluster: ${line}\n`);
  const count = Number(process.env.REPLICAS ?? 3);
  if (!Number.isInteger(count) || count < 1) throw new Error(`REPLICAS must be a positive integer, not ${JSON.stringify(process.env.REPLICAS)}`);
  const secret = process.env.REQUEST_STATE_SECRET ?? randomBytes(32).toString('base64url');
  let redis: LocalRedis | undefined;
  const replicas: ReplicaProcess[] = [];
  let proxy: Proxy | undefined;
  let stopping = false;

  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    await proxy?.close().catch(() => undefined);
    await Promise.all(replicas.map((r) => r.stop()));
    await redis?.stop();
    process.exit(code);
  };
  process.once('SIGINT', () => void stop(0));
  process.once('SIGTERM', () => void stop(0));

  try {
    let redisUrl = process.env.REDIS_URL;
    if (!redisUrl) {
      redis = await startLocalRedis();
      redisUrl = redis.url;
      say(`started redis-server at ${redisUrl} (pid ${redis.pid}); set REDIS_URL to use another Redis`);
    }
    for (let i = 1; i <= count; i++) {
      const replica = await spawnReplica({ replicaId: `replica-${i}`, redisUrl, requestStateSecret: secret });
      replicas.push(replica);
      replica.exited.then(() => {
        if (!stopping) say(`${replica.replicaId} (pid ${replica.pid}) exited; the proxy routes around it`);
      });
      say(`${replica.replicaId} serves ${replica.url} (pid ${replica.pid})`);
    }
    proxy = await startProxy({
      targets: replicas.map((r) => `http://127.0.0.1:${r.port}`),
      port: Number(process.env.PORT ?? 3000),
      onEvent: (event) => {
        if (event.type === 'down') say(`proxy: ${event.target} unreachable, left out for a while`);
        if (event.type === 'up') say(`proxy: trying ${event.target} again`);
      },
    });
    say(`serving MCP at ${proxy.url} (round-robin over ${count} replicas, no stickiness). Stop with Ctrl+C.`);
    say(`try: kill -9 ${replicas[0].pid}   (a replica dies; clients go on through the others)`);
  } catch (error) {
    say(error instanceof Error ? error.message : String(error));
    await stop(1);
  }
}

void main();
