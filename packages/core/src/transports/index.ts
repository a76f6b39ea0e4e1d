export type { MessageInfo, Transport, TransportSendOptions } from '../protocol';
export { StdioTransport } from './StdioTransport';
export type { StdioTransportOptions } from './StdioTransport';
export { InMemoryTransport } from './InMemoryTransport';
export { createHttpHandler } from './http';
export type { HttpHandlerOptions, HttpSecurityOptions, HttpServerHost, NodeHttpHandler } from './http';
