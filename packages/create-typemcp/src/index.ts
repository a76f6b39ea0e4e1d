export { scaffold, nextSteps, packageNameProblem, ScaffoldError } from './scaffold';
export type { ScaffoldOptions, ScaffoldResult, TransportChoice, PackageManager } from './scaffold';
export { main } from './main';
