export { Session } from './Session';
export type { SessionState, SessionChannel } from './Session';
export type { RequestScope } from './RequestScope';
export type { RequestChannel } from './RequestChannel';
export { eraOf, handshakeEra } from './Era';
export type { Era, EraSource } from './Era';
export { LOGGING_LEVELS } from './types';
export type { ClientCapabilities, Implementation, LoggingLevel } from './types';
