export type { HttpHandlerOptions, NodeHttpHandler } from './node';
export { createFetchHandler } from './fetch';
export { httpStageRefusal } from './pipeline';
export type { FetchHandler, FetchHandlerOptions } from './fetch';
export type { HttpEndpointOptions, HttpServerHost, AloneExchange, Readiness } from './endpoint';
export type { HttpSecurityOptions } from './security';
