export { Session } from './Session';
export type { SessionState, SessionChannel } from './Session';
export type { RequestScope } from './RequestScope';
export type { RequestChannel } from './RequestChannel';
export { LOGGING_LEVELS } from './types';
export type { ClientCapabilities, Implementation, LoggingLevel } from './types';
