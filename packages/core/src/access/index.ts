export { AccessPolicy } from './AccessPolicy';
export type { Principal } from './Principal';
export type { Authentication, AuthChallenge } from './Authentication';
export type { AccessGuard, GuardInput } from './Guard';
