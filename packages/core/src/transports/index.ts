export type { HttpRequestInfo, MessageInfo, Transport, TransportSendOptions } from '../protocol';
export type { StdioTransportOptions } from './StdioTransport';
export { InMemoryTransport } from './InMemoryTransport';
export { createFetchHandler, httpStageRefusal } from './http';
export type { AloneExchange, Readiness, FetchHandler, FetchHandlerOptions, HttpEndpointOptions, HttpHandlerOptions, HttpSecurityOptions, HttpServerHost, NodeHttpHandler } from './http';
