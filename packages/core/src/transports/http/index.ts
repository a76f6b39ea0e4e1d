export { createHttpHandler } from './StreamableHttpHandler';
export type { HttpHandlerOptions, HttpServerHost, NodeHttpHandler } from './StreamableHttpHandler';
export { InMemoryEventStore } from './EventStore';
export type { EventStore } from './EventStore';
export type { HttpSecurityOptions } from './security';
