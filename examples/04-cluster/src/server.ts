import 'reflect-metadata';
import { Cluster, Redis } from 'ioredis';
import { container } from 'tsyringe';
import { McpServer } from '@typemcp/core';
import type { TaskOptions } from '@typemcp/core';
import { redis } from '@typemcp/redis';
import { Board } from './Board';
import { BOARD, BoardTools } from './BoardTools';

export interface BoardServerOptions {
  /** The Redis every replica shares: `redis://127.0.0.1:6379`. Give this or `redisCluster`. */
  redisUrl?: string;
  /** Or a Redis Cluster every replica shares: some of its nodes, `redis://10.0.0.1:6379`… */
  redisCluster?: string[];
  /** This replica's name, unique in the cluster. */
  replicaId: string;
  /** The same on every replica: the key of 2026-07-28 `requestState` (16 characters at least). */
  requestStateSecret: string;
  /** Task lease and poll intervals (the tests shorten them). */
  tasks?: Omit<TaskOptions, 'store'>;
  /** Put before every key, the cluster's and the board's (default `board-example:`). */
  keyPrefix?: string;
}

/**
 * One replica of the board server. Run as many as you like against one Redis: the
 * `@typemcp/redis` plugin shares sessions, SSE events, change notifications and tasks between
 * them; the board itself is a Redis list of its own connection.
 */
export function createBoardServer(options: BoardServerOptions): McpServer {
  const prefix = options.keyPrefix ?? 'board-example:';
  if ((options.redisUrl === undefined) === (options.redisCluster === undefined)) throw new Error('createBoardServer: give redisUrl or redisCluster');
  // The board's own commands are bounded too: a frozen Redis fails a board call in 5 s, it does not hang it.
  const boardOptions = { maxRetriesPerRequest: 2, commandTimeout: 5_000 };
  const connection = options.redisCluster
    ? new Cluster(options.redisCluster, { lazyConnect: true, redisOptions: boardOptions })
    : new Redis(options.redisUrl!, { lazyConnect: true, ...boardOptions });
  const board = new Board(connection, options.replicaId, `${prefix}board:`);
  const scope = container.createChildContainer();
  scope.register(BOARD, { useValue: board });
  const server = new McpServer({
    container: scope,
    name: 'board',
    version: '1.0.0',
    instructions: 'A message board shared by every replica: post_message, read_messages, sign_and_post; board://latest changes at every post.',
    providers: [BoardTools],
    requestState: { secret: options.requestStateSecret },
    tasks: options.tasks,
  });
  board.notify = (uri) => server.resources.notifyUpdated(uri);
  const where = options.redisCluster ? { cluster: options.redisCluster } : { url: options.redisUrl! };
  server.plugin(redis, { ...where, replicaId: options.replicaId, keyPrefix: prefix });
  // The board's own connection: reported through the server, closed with it.
  server.plugin({
    name: 'board-store',
    register(host) {
      connection.on('error', (error) => host.reportError('board: the Redis connection failed (it retries)', error));
      host.onClose(async () => {
        await connection.quit().catch(() => connection.disconnect());
      });
    },
  });
  return server;
}
