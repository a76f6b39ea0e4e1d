export { addressKey, callerOf, principalCaller } from './caller';
export type { Caller } from './caller';
export { ClientAddresses } from './ClientAddresses';
