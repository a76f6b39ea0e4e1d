export { Timeout, timeouts } from './timeouts';
export type { TimeoutOptions } from './timeouts';
