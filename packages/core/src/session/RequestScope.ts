import type { Revision } from '../protocol';
import type { ClientCapabilities, Implementation, LoggingLevel } from './types';
import type { Session } from './Session';

/**
 * What a request knows about its client. In the handshake era it comes from the session;
 * in the stateless era from the request's own `_meta`. Handlers only ever see this.
 */
export interface RequestScope {
  readonly protocolVersion: string;
  /** @internal What the request's messages can carry (see Revision). */
  readonly revision: Revision;
  readonly clientCapabilities: ClientCapabilities;
  readonly clientInfo: Implementation | undefined;
  readonly logLevel: LoggingLevel | undefined;
  /** The handshake-era session, absent for stateless requests. */
  readonly session: Session | undefined;
}
