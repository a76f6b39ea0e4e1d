import type { Cluster, ClusterNode, Redis, RedisOptions } from 'ioredis';

/** Options of the `redis` plugin: give `url`, `cluster` or `client`. */
export interface RedisPluginOptions {
  /** Where Redis is: `redis://[user:password@]host[:port][/db]`, or `rediss://` for TLS. The plugin opens the connection and quits it when the server closes. */
  url?: string;
  /**
   * The nodes of a Redis Cluster to start from (`[{ host, port }]` or `'redis://host:port'`
   * strings): the plugin opens an ioredis `Cluster` and quits it when the server closes.
   * Sessions and events spread over the slots; the keys of the tasks share one (hash tag `{tasks}`).
   */
  cluster?: Array<ClusterNode | string>;
  /** A connection of your own (ioredis `Redis` or `Cluster`), instead of `url`. The plugin never closes it: quit it after `server.close()`. */
  client?: Redis | Cluster;
  /** ioredis options for the connection the plugin opens from `url`, or for each node of `cluster` (TLS, retries, timeouts…). */
  redisOptions?: RedisOptions;
  /** Put before every key and channel (default `typemcp:`); give each server sharing one Redis its own. The replicas of one server share it. */
  keyPrefix?: string;
  /** This replica's name, unique in the cluster: 1 to 64 letters, digits, `_` and `-` (default: random). */
  replicaId?: string;
  /** The SSE events kept per stream for `Last-Event-ID` resumption (default 1000). */
  maxEventsPerStream?: number;
  /** An SSE stream without new events for this long is forgotten, in ms (default 3 600 000: one hour). */
  eventStreamTtlMs?: number;
  /**
   * A Redis command not answered within this many ms fails (default 5 000). Redis is then taken
   * as down: requests that need it fail at once (HTTP 503 with `Retry-After` where it routes
   * them, the protocol's internal error inside a request) until a PING, sent every second,
   * is answered; requests that do not need Redis are served all along.
   */
  commandTimeoutMs?: number;
}
