/**
 * The Web entry of @typemcp/client (export conditions `workerd`, `worker`, `browser`):
 * everything but the stdio transport, which spawns processes. index.ts, the entry for Node,
 * Bun and Deno, adds it.
 */
export { Client } from './Client';
export { McpRequestError, RequestTimeoutError, ConnectionClosedError } from './errors';
export { StreamableHttpClientTransport } from './transports/StreamableHttpClientTransport';
export type { StreamableHttpClientOptions } from './transports/StreamableHttpClientTransport';
export type { ClientTransport, ClientSendOptions, ReceivedInfo } from './transports/ClientTransport';
export { InMemoryTransport } from '@typemcp/core';
export type * from './types';
export { typed } from './typed/typed';
export type { NoArguments, ToolCaller, ToolMap, ToolResult, ToolsOf, TypedClient, TypedTools, Wire } from './typed/typed';
