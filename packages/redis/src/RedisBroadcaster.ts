import type { Cluster, Redis, RedisStatus } from 'ioredis';
import type { Broadcaster, ClusterMessage } from '@typemcp/core';
import { checkClient, invalidOption, keyPrefixOf } from './keys';
import type { RedisStoreOptions } from './keys';

/** Options of a RedisBroadcaster. */
export interface RedisBroadcasterOptions extends RedisStoreOptions {
  /**
   * The connection to subscribe on, in subscriber mode from then on: give it no other work.
   * Default: `client.duplicate()`, connected on the first subscribe and quit by `close()`.
   */
  subscriber?: Redis;
  /** Told of messages that are not JSON and of subscribers that threw (default: ignored). */
  onError?: (what: string, error: unknown) => void;
}

type Entry = (text: string) => void;

interface Channel {
  readonly entries: Set<Entry>;
  /** True once Redis confirmed SUBSCRIBE, until UNSUBSCRIBE is sent. */
  subscribed: boolean;
  /** SUBSCRIBE and UNSUBSCRIBE of this channel, one after the other. */
  queue: Promise<void>;
}

/**
 * Publish/subscribe between replicas over Redis: PUBLISH on the client, and one dedicated
 * subscriber connection for every topic of this replica. A topic is the channel
 * `<prefix>bus:<topic>`, subscribed once in Redis however many local subscribers it has, and
 * unsubscribed when the last of them leaves. Messages travel as JSON; each local subscriber gets
 * its own copy. Delivery is Redis pub/sub's: at most once, in order per publisher, the
 * publisher included.
 */
export class RedisBroadcaster implements Broadcaster {
  private readonly prefix: string;
  private readonly subscriber: Redis;
  private readonly ownsSubscriber: boolean;
  private readonly channels = new Map<string, Channel>();
  private readonly onError: (what: string, error: unknown) => void;
  private closed = false;

  constructor(
    private readonly client: Redis,
    options?: RedisBroadcasterOptions,
  ) {
    checkClient(client, 'RedisBroadcaster');
    this.prefix = `${keyPrefixOf(options, 'RedisBroadcaster')}bus:`;
    if (options?.subscriber !== undefined) checkClient(options.subscriber, 'RedisBroadcaster: subscriber');
    if (options?.subscriber === client) throw invalidOption('RedisBroadcaster: the subscriber connection must not be the client that publishes; leave it out to use client.duplicate()');
    if (options?.onError !== undefined && typeof options.onError !== 'function') throw invalidOption('RedisBroadcaster: onError must be a function (what, error) => void');
    this.onError = options?.onError ?? (() => {});
    this.ownsSubscriber = options?.subscriber === undefined;
    // Lazy: it connects on the first subscribe. A Cluster's duplicate takes its start nodes first.
    this.subscriber =
      options?.subscriber ??
      (isCluster(client) ? (client as unknown as Cluster).duplicate([], { lazyConnect: true }) as unknown as Redis : client.duplicate({ lazyConnect: true }));
    this.subscriber.on('message', this.deliver);
  }

  /** The connection this broadcaster subscribes on. */
  get subscriberConnection(): Redis {
    return this.subscriber;
  }

  /** PUBLISH: one round trip. */
  async publish(topic: string, message: ClusterMessage): Promise<void> {
    await this.client.publish(this.prefix + topic, JSON.stringify(message));
  }

  /** Resolves once Redis confirmed the SUBSCRIBE (at once when the topic already had a local subscriber). */
  async subscribe(topic: string, onMessage: (message: ClusterMessage) => void): Promise<() => Promise<void>> {
    if (this.closed) throw new Error('RedisBroadcaster: closed; subscribe before close()');
    const name = this.prefix + topic;
    let channel = this.channels.get(name);
    if (!channel) this.channels.set(name, (channel = { entries: new Set(), subscribed: false, queue: Promise.resolve() }));
    // Each subscription is its own entry, even for the same function.
    const entry: Entry = (text) => onMessage(JSON.parse(text) as ClusterMessage);
    channel.entries.add(entry);
    try {
      await this.sync(name, channel);
    } catch (error) {
      channel.entries.delete(entry);
      this.forget(name, channel);
      throw error;
    }
    const owner = channel;
    return async () => {
      if (!owner.entries.delete(entry)) return;
      await this.sync(name, owner);
      this.forget(name, owner);
    };
  }

  /** Quits the subscriber connection if this broadcaster created it; later subscribes fail. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.subscriber.off('message', this.deliver);
    this.channels.clear();
    if (this.ownsSubscriber) await quit(this.subscriber);
  }

  /** Brings Redis in line with the channel's local subscribers, after what is already under way. */
  private sync(name: string, channel: Channel): Promise<void> {
    const run = channel.queue.then(async () => {
      if (this.closed) return;
      const wanted = channel.entries.size > 0;
      if (wanted && !channel.subscribed) {
        await this.subscriber.subscribe(name);
        channel.subscribed = true;
      } else if (!wanted && channel.subscribed) {
        channel.subscribed = false;
        await this.subscriber.unsubscribe(name);
      }
    });
    channel.queue = run.catch(() => {});
    return run;
  }

  private forget(name: string, channel: Channel): void {
    if (channel.entries.size === 0 && !channel.subscribed && this.channels.get(name) === channel) this.channels.delete(name);
  }

  private readonly deliver = (name: string, text: string): void => {
    const channel = this.channels.get(name);
    if (!channel) return;
    for (const entry of [...channel.entries]) {
      try {
        entry(text);
      } catch (error) {
        this.onError(`a message on ${JSON.stringify(name)} could not be delivered`, error);
      }
    }
  };
}

/**
 * QUIT (pending replies first), or a disconnect when the connection is not up (QUIT would wait
 * for a reconnection); resolves once the connection has ended.
 */
export async function quit(connection: Redis): Promise<void> {
  if (connection.status === 'end') return;
  const ended = new Promise<void>((resolve) => connection.once('end', () => resolve()));
  if (connection.status === 'ready') {
    try {
      await connection.quit();
    } catch {
      connection.disconnect();
    }
    if (statusOf(connection) === 'end') return;
  } else {
    const status = connection.status;
    connection.disconnect();
    // Between two attempts there is no socket to close, and disconnect() cancelled the next attempt.
    if (status === 'reconnecting' || status === 'close' || statusOf(connection) === 'end') return;
  }
  await ended;
}

/** The status now (read through a call: TypeScript would keep the value it narrowed before). */
function statusOf(connection: Redis): RedisStatus {
  return connection.status;
}

/** An ioredis Cluster (given as the stores' client): it has `nodes()`, a Redis has not. */
function isCluster(client: Redis): boolean {
  return typeof (client as unknown as { nodes?: unknown }).nodes === 'function';
}
