export { Mount } from './Mount';
export type { Mountable, MountOptions } from './Mount';
export type { MountedNames } from './names';
export { transformTool } from './transformTool';
export type { ArgumentTransform, ToolTransform } from './transformTool';
export { RemoteItemSet } from './remote';
export type { RemoteAccess, RemoteCatalog, RemoteHost, RemoteCompleter, RemoteItems, RemotePrompt, RemoteResource, RemoteTemplate, RemoteTool, RemoteToolListing } from './remote';
