export { AccessPolicy } from './AccessPolicy';

export type { Authentication, AuthChallenge } from './Authentication';
export type { AccessGuard, GuardInput } from './Guard';
