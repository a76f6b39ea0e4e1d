/** The entry of @typemcp/client for Node, Bun and Deno: the Web entry, and the stdio transport. */
export * from './index.web';
export { StdioClientTransport } from './transports/StdioClientTransport';
export type { StdioServerParameters } from './transports/StdioClientTransport';
