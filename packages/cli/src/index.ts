export { run } from './run';
export { buildUi } from './commands/ui';
export type { BuiltUi, UiCsp, UiOptions } from './commands/ui';
export { serverJsonFor, RegistryError, SERVER_SCHEMA_URL } from './registry/serverJson';
export type { DeclaredServer, PackageManifest, ServerJson, ServerJsonInput } from './registry/serverJson';
export { checkServerJson, isExactVersion } from './registry/rules';
export type { ServerJsonReport } from './registry/rules';
