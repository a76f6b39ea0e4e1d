export { run } from './run';
export { buildUi } from './commands/ui';
export type { BuiltUi, UiCsp, UiOptions } from './commands/ui';
