export { McpServer } from './McpServer';
export type { McpServerOptions, ListenOptions, StdioListenOptions, ToolsControl } from './McpServer';
export { Context } from './Context';
