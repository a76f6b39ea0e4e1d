/** The entry for Node, Bun and Deno: the Web entry plus what needs Node's modules. */
import './server/node';

export * from './index.web';
export { StdioTransport } from './transports/StdioTransport';
export { isInsideRoots } from './features/rootsContain';
