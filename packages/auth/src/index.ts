export { auth } from './auth';
export type { AuthOptions } from './options';
