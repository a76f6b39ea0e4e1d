export type { Transport, TransportSendOptions } from './Transport';
export { StdioTransport } from './StdioTransport';
export type { StdioTransportOptions } from './StdioTransport';
export { InMemoryTransport } from './InMemoryTransport';
