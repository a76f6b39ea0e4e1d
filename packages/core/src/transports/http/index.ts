export type { HttpHandlerOptions, NodeHttpHandler } from './node';
export { createFetchHandler } from './fetch';
export type { FetchHandler, FetchHandlerOptions } from './fetch';
export type { HttpEndpointOptions, HttpServerHost, AloneExchange, Readiness } from './StreamableHttp';
export type { HttpSecurityOptions } from './security';
