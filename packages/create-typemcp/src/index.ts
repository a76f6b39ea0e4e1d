export { scaffold, nextSteps, packageNameProblem, ScaffoldError, PLACEHOLDER_NAMESPACE } from './scaffold';
export type { ScaffoldOptions, ScaffoldResult, TransportChoice, PackageManager } from './scaffold';
export { main } from './main';
