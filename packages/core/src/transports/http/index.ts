export { createHttpHandler } from './StreamableHttpHandler';
export type { HttpHandlerOptions, HttpServerHost, NodeHttpHandler } from './StreamableHttpHandler';
export type { HttpSecurityOptions } from './security';
