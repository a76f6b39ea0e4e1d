import type { Broadcaster } from './Broadcaster';
import type { EventStore } from './EventStore';
import type { SessionStore } from './SessionStore';
import type { TaskStore } from './TaskStore';

/**
 * What the replicas of one server share so that any of them serves any request: handshake-era
 * sessions, the SSE events kept for `Last-Event-ID`, and a broadcaster for change
 * notifications, server logs, session updates and client answers routed to the replica that
 * asked. Every replica must also be given the same `requestState.secret`.
 */
export interface ClusterOptions {
  sessions: SessionStore;
  events: EventStore;
  broadcaster: Broadcaster;
  /**
   * Where the replicas keep MCP tasks (long-running tools), so any of them answers `tasks/get`
   * and one runs again the idempotent tasks of a replica that stopped. Default: each replica
   * its own InMemoryTaskStore (tasks then live on the replica that created them).
   */
  tasks?: TaskStore;
  /** This replica's name, unique in the cluster: letters, digits, `_` and `-` (default: random). */
  replicaId?: string;
}
