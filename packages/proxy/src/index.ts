export { ProxyServer } from './ProxyServer';
export type { HttpUpstream, ProxyOptions } from './ProxyServer';
export type { StdioUpstream } from './client/stdio';
export type { ReconnectOptions, UpstreamState } from './Upstream';
