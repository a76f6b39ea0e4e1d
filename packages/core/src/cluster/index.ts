export { InMemoryEventStore } from './EventStore';
export type { EventStore } from './EventStore';
export { InMemorySessionStore } from './SessionStore';
export type { SessionRecord, SessionStore } from './SessionStore';
export { InMemoryBroadcaster } from './Broadcaster';
export type { Broadcaster, ClusterMessage } from './Broadcaster';
export type { ClusterOptions } from './ClusterOptions';
