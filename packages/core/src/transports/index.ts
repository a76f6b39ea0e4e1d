export type { HttpRequestInfo, MessageInfo, Transport, TransportSendOptions } from '../protocol';
export { StdioTransport } from './StdioTransport';
export type { StdioTransportOptions } from './StdioTransport';
export { InMemoryTransport } from './InMemoryTransport';
export { createFetchHandler, createNodeHandler } from './http';
export type { AloneExchange, FetchHandler, FetchHandlerOptions, HttpEndpointOptions, HttpHandlerOptions, HttpSecurityOptions, HttpServerHost, NodeHttpHandler } from './http';
