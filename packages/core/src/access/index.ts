export { AccessPolicy } from './AccessPolicy';
export { AuthenticationService } from './Authentication';
export type { Authentication, AuthChallenge, AuthChallengeReply } from './Authentication';
export type { AccessGuard, GuardInput } from './Guard';
