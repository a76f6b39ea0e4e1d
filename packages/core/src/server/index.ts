export { McpServer } from './McpServer';
export type { MountedServer } from './McpServer';
export type { IdentityUpdate } from './settings';
export { cluster } from './clusterPlugin';
export type {
  McpServerOptions,
  EnvironmentVariable,
  ServerDeclaration,
  ListenOptions,
  StdioListenOptions,
  HttpListenOptions,
  ListenAddress,
  ConnectOptions,
  ListControl,
  ToolsControl,
  PromptsControl,
  ResourcesControl,
  CacheableMethod,
} from './options';
