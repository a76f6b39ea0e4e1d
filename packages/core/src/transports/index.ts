export type { Transport, TransportSendOptions } from '../protocol';
export { StdioTransport } from './StdioTransport';
export type { StdioTransportOptions } from './StdioTransport';
export { InMemoryTransport } from './InMemoryTransport';
export { createHttpHandler, InMemoryEventStore } from './http';
export type { EventStore, HttpHandlerOptions, HttpSecurityOptions, HttpServerHost, NodeHttpHandler } from './http';
