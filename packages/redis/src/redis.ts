import { Redis } from 'ioredis';
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
    const client = options.client ?? new Redis(options.url!, { ...options.redisOptions, lazyConnect: true });
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
  if (options.url !== undefined && options.client !== undefined) fail('give url or client, not both');
  if (options.url === undefined && options.client === undefined) fail("give url (e.g. 'redis://127.0.0.1:6379') or client (an ioredis Redis)");
  if (options.url !== undefined && (typeof options.url !== 'string' || !URL.canParse(options.url) || !['redis:', 'rediss:'].includes(new URL(options.url).protocol))) {
    fail(`url must be a redis:// or rediss:// URL such as 'redis://127.0.0.1:6379', not ${JSON.stringify(options.url)}`);
  }
  if (options.client !== undefined && (typeof options.client !== 'object' || options.client === null || typeof options.client.duplicate !== 'function' || typeof options.client.evalsha !== 'function')) {
    fail("client must be an ioredis connection: new Redis(url) from 'ioredis'");
  }
  if (options.redisOptions !== undefined && options.client !== undefined) fail('redisOptions apply to the connection opened from url; configure your client yourself');
  if (options.redisOptions !== undefined && (typeof options.redisOptions !== 'object' || options.redisOptions === null)) fail('redisOptions must be an object of ioredis options');
  if (options.keyPrefix !== undefined && (typeof options.keyPrefix !== 'string' || options.keyPrefix === '')) {
    fail(`keyPrefix must be a non-empty string such as 'myserver:', not ${JSON.stringify(options.keyPrefix)}`);
  }
  if (options.replicaId !== undefined && (typeof options.replicaId !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(options.replicaId))) {
    fail(`replicaId must be 1 to 64 letters, digits, "_" or "-", not ${JSON.stringify(options.replicaId)}`);
  }
}
