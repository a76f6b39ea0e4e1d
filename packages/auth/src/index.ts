export { auth } from './auth';
export type { AuthOptions } from './options';
export * from './signin';
export * from './dpop';
