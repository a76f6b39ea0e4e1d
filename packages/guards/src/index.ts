export { callerOf, ClientAddresses } from './callers';
export type { Caller } from './callers';
export type { PerItem } from './items';
