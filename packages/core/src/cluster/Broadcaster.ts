import { nextTurn } from '../platform';

/** A message between replicas: plain JSON. */
export type ClusterMessage = Record<string, unknown>;

/**
 * Publish/subscribe between the replicas of one server: change notifications, server logs,
 * session updates, and the route of a client's answer to the replica that asked. Delivery is
 * at most once, in publishing order per publisher and topic; the publisher receives its own
 * messages too.
 */
export interface Broadcaster {
  publish(topic: string, message: ClusterMessage): Promise<void>;
  /** Calls `onMessage` for every later message on `topic`; resolves, once subscribed, with the function that unsubscribes. */
  subscribe(topic: string, onMessage: (message: ClusterMessage) => void): Promise<() => Promise<void>>;
}

/** A Broadcaster in this process: for several servers in one process, and for tests. */
export class InMemoryBroadcaster implements Broadcaster {
  private readonly topics = new Map<string, Set<(message: ClusterMessage) => void>>();

  async publish(topic: string, message: ClusterMessage): Promise<void> {
    const text = JSON.stringify(message);
    // Delivered later, as over a network, each subscriber with its own copy.
    for (const onMessage of this.topics.get(topic) ?? []) nextTurn(() => onMessage(JSON.parse(text) as ClusterMessage));
  }

  async subscribe(topic: string, onMessage: (message: ClusterMessage) => void): Promise<() => Promise<void>> {
    let subscribers = this.topics.get(topic);
    if (!subscribers) this.topics.set(topic, (subscribers = new Set()));
    // Each subscription is its own entry, even for the same function.
    const entry = (message: ClusterMessage) => onMessage(message);
    subscribers.add(entry);
    return async () => {
      subscribers.delete(entry);
      if (subscribers.size === 0) this.topics.delete(topic);
    };
  }
}
