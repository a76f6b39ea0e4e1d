import { Cluster, Redis } from 'ioredis';
import { ClusterService } from '@typemcp/core';
import type { ClusterOptions, Plugin, PluginHost } from '@typemcp/core';
import { invalidOption, positiveInteger } from './keys';
import type { RedisPluginOptions } from './options';
import { RedisGuard } from './guard';
import { RedisBroadcaster, quit } from './RedisBroadcaster';
import { RedisEventStore } from './RedisEventStore';
import { RedisSessionStore } from './RedisSessionStore';
import { RedisTaskStore } from './RedisTaskStore';

const NAME = '@typemcp/redis';

/**
 * Makes the server one replica of a cluster sharing one Redis: handshake-era sessions, SSE
 * events for resumption, pub/sub between replicas and tasks. Add with
 * `server.plugin(redis, { url: 'redis://…' })` on every replica (with the same
 * `requestState.secret`). It opens a connection from `url` (or uses `client`) plus a dedicated
 * subscriber connection, reports connection errors through the server, and quits the
 * connections it opened when the server closes.
 */
export const redis: Plugin<RedisPluginOptions> = {
  name: NAME,
  version: '0.1.0',
  register(host, options) {
    checkOptions(options);
    const keyPrefix = options.keyPrefix;
    const maxEventsPerStream = positiveInteger(options.maxEventsPerStream, 1000, NAME, 'maxEventsPerStream');
    const streamTtlMs = positiveInteger(options.eventStreamTtlMs, 3_600_000, NAME, 'eventStreamTtlMs');
    const commandTimeoutMs = positiveInteger(options.commandTimeoutMs, 5_000, NAME, 'commandTimeoutMs');
    const owned = options.client === undefined;
    // Lazy: nothing connects before the server first uses Redis, so a server that refuses the
    // plugin after register() (e.g. without requestState.secret) is left with no open socket.
    // A Cluster speaks the same commands: the stores take it as a Redis.
    const client = (options.client ??
      (options.cluster !== undefined
        ? new Cluster(options.cluster.map(clusterNode), { redisOptions: options.redisOptions, lazyConnect: true })
        : new Redis(options.url!, { ...options.redisOptions, lazyConnect: true }))) as Redis;
    const detachClient = reportErrors(host, client, 'the Redis connection');
    // Every command of the stores is bounded; past the bound the replica fails fast until Redis answers.
    const guard = new RedisGuard(client, {
      commandTimeoutMs,
      probeIntervalMs: Math.min(1_000, commandTimeoutMs),
      onChange: (up, cause) =>
        host.reportError(up ? 'Redis answers again; requests that need it are served again' : 'Redis does not answer; requests that need it fail fast (503) until it does', up ? undefined : cause),
    });
    const guarded = guard.wrap();
    // Load balancers asking a readinessPath move traffic away while this replica fails fast.
    host.readiness('redis', () => guard.up);
    let broadcaster: RedisBroadcaster | undefined;
    let detachSubscriber = () => {};
    try {
      broadcaster = new RedisBroadcaster(guarded, { keyPrefix, onError: (what, error) => host.reportError(what, error) });
      detachSubscriber = reportErrors(host, broadcaster.subscriberConnection, 'the Redis subscriber connection');
      const cluster: ClusterOptions = {
        sessions: new RedisSessionStore(guarded, { keyPrefix }),
        events: new RedisEventStore(guarded, { keyPrefix, maxEventsPerStream, streamTtlMs }),
        broadcaster,
        tasks: new RedisTaskStore(guarded, { keyPrefix }),
        ...(options.replicaId !== undefined ? { replicaId: options.replicaId } : {}),
      };
      host.provide(ClusterService, cluster);
    } catch (error) {
      // Registration failed: nothing of this plugin stays, its connections included.
      detachSubscriber();
      detachClient();
      guard.close();
      void broadcaster?.close();
      if (owned) client.disconnect();
      throw error;
    }
    const opened = broadcaster;
    host.onClose(async () => {
      guard.close();
      await opened.close();
      detachSubscriber();
      if (owned) await quit(client);
      detachClient();
    });
  },
};

/** Reports the first error of each outage (ioredis retries and repeats it until Redis is back); returns the undo. */
function reportErrors(host: PluginHost, connection: Redis, what: string): () => void {
  let down = false;
  const onError = (error: unknown) => {
    if (down) return;
    down = true;
    host.reportError(`${what} failed (it retries)`, error);
  };
  const onReady = () => {
    down = false;
  };
  connection.on('error', onError);
  connection.on('ready', onReady);
  return () => {
    connection.off('error', onError);
    connection.off('ready', onReady);
  };
}

function checkOptions(options: RedisPluginOptions | undefined): asserts options is RedisPluginOptions {
  const fail = (message: string): never => {
    throw invalidOption(`${NAME}: ${message}`);
  };
  if (typeof options !== 'object' || options === null) return fail("options are required: server.plugin(redis, { url: 'redis://127.0.0.1:6379' })");
  const given = [options.url, options.cluster, options.client].filter((value) => value !== undefined).length;
  if (given > 1) fail('give one of url, cluster and client');
  if (given === 0) fail("give url (e.g. 'redis://127.0.0.1:6379'), cluster (the nodes of a Redis Cluster) or client (an ioredis Redis or Cluster)");
  if (options.cluster !== undefined && (!Array.isArray(options.cluster) || options.cluster.length === 0 || !options.cluster.every(isClusterNode))) {
    fail("cluster must be a non-empty list of nodes such as [{ host: '10.0.0.1', port: 6379 }] or ['redis://10.0.0.1:6379']");
  }
  if (options.url !== undefined && (typeof options.url !== 'string' || !URL.canParse(options.url) || !['redis:', 'rediss:'].includes(new URL(options.url).protocol))) {
    fail(`url must be a redis:// or rediss:// URL such as 'redis://127.0.0.1:6379', not ${JSON.stringify(options.url)}`);
  }
  if (options.client !== undefined && (typeof options.client !== 'object' || options.client === null || typeof options.client.duplicate !== 'function' || typeof options.client.evalsha !== 'function')) {
    fail("client must be an ioredis connection: new Redis(url) from 'ioredis'");
  }
  if (options.redisOptions !== undefined && options.client !== undefined) fail('redisOptions apply to the connection opened from url or cluster; configure your client yourself');
  if (options.redisOptions !== undefined && (typeof options.redisOptions !== 'object' || options.redisOptions === null)) fail('redisOptions must be an object of ioredis options');
  if (options.keyPrefix !== undefined && (typeof options.keyPrefix !== 'string' || options.keyPrefix === '')) {
    fail(`keyPrefix must be a non-empty string such as 'myserver:', not ${JSON.stringify(options.keyPrefix)}`);
  }
  if (options.replicaId !== undefined && (typeof options.replicaId !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(options.replicaId))) {
    fail(`replicaId must be 1 to 64 letters, digits, "_" or "-", not ${JSON.stringify(options.replicaId)}`);
  }
}

function isClusterNode(node: unknown): boolean {
  if (typeof node === 'string') return URL.canParse(node) && ['redis:', 'rediss:'].includes(new URL(node).protocol);
  return typeof node === 'object' && node !== null && typeof (node as { host?: unknown }).host === 'string' && Number.isInteger((node as { port?: unknown }).port);
}

/** A node as ioredis' Cluster takes it: `{ host, port }` (a URL string is read into one). */
function clusterNode(node: import('ioredis').ClusterNode | string): import('ioredis').ClusterNode {
  if (typeof node !== 'string') return node;
  const url = new URL(node);
  return { host: url.hostname, port: Number(url.port || 6379) };
}
