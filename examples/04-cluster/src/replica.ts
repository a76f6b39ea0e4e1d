import { createBoardServer } from './server';

/**
 * One replica of the board server, configured from the environment:
 *
 *   REDIS_URL             the Redis all replicas share (this or REDIS_CLUSTER)
 *   REDIS_CLUSTER         or the nodes of a Redis Cluster they share: redis://10.0.0.1:6379,redis://…
 *   REQUEST_STATE_SECRET  the same on every replica, 16 characters at least (required)
 *   REPLICA_ID            this replica's name, unique in the cluster (default replica-<pid>)
 *   PORT                  the port to listen on, on 127.0.0.1 (default 0: a free one)
 *   TASK_LEASE_MS, TASK_RENEW_MS, TASK_POLL_MS   task lease, renewal and poll intervals
 *   CLOSE_ON_STDIN_END=1  stop when stdin ends (the parent that spawned it went away)
 *
 * Prints `LISTENING <port> <replica id>` on stdout once it serves; stops cleanly on SIGINT/SIGTERM.
 */
function setting(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`replica: set ${name}`);
  return value;
}

function milliseconds(name: string): number | undefined {
  const value = process.env[name];
  if (value === undefined || value === '') return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number <= 0) throw new Error(`replica: ${name} must be a positive integer of milliseconds, not ${JSON.stringify(value)}`);
  return number;
}

function redisOf(): { redisUrl: string } | { redisCluster: string[] } {
  const nodes = process.env.REDIS_CLUSTER;
  return nodes ? { redisCluster: nodes.split(',') } : { redisUrl: setting('REDIS_URL') };
}

async function main(): Promise<void> {
  const replicaId = process.env.REPLICA_ID || `replica-${process.pid}`;
  const server = createBoardServer({
    ...redisOf(),
    replicaId,
    requestStateSecret: setting('REQUEST_STATE_SECRET'),
    tasks: { leaseMs: milliseconds('TASK_LEASE_MS'), renewIntervalMs: milliseconds('TASK_RENEW_MS'), pollIntervalMs: milliseconds('TASK_POLL_MS') },
  });
  const { url } = await server.listen({ transport: 'http', host: '127.0.0.1', port: Number(process.env.PORT ?? 0) });
  if (process.env.CLOSE_ON_STDIN_END === '1') {
    process.stdin.on('end', () => void server.close().finally(() => process.exit(0)));
    process.stdin.resume();
  }
  process.stdout.write(`LISTENING ${new URL(url).port} ${replicaId}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`replica: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
