import { requestedEra } from '../protocol';
import type { EraName } from '../protocol';
import type { RequestChannel } from './RequestChannel';
import type { RequestScope } from './RequestScope';
import type { Session } from './Session';

/** What a connection offers the era of a request to build its scope and channel from. */
export interface EraSource {
  /** The connection's handshake-era session. */
  readonly session: Session;
  /** The connection's channel to its client. */
  readonly channel: RequestChannel;
}

/**
 * How one protocol era carries a request's context (DESIGN.md §1). For every request the
 * runtime asks the request's era whether it may be served yet, for its scope (protocol
 * version, client info and capabilities, log level) and for the channel on which
 * progress, logs, sampling, elicitation and roots reach the client. Handlers see neither:
 * only the Context built from them.
 */
export interface Era {
  readonly name: EraName;
  /** Why `method` cannot be served on this source yet, or undefined when it can. */
  refusal(source: EraSource, method: string): string | undefined;
  scope(source: EraSource, params: Record<string, unknown>): RequestScope;
  channel(source: EraSource, params: Record<string, unknown>): RequestChannel;
}

/**
 * The handshake era (2024-11-05 … 2025-11-25): `initialize` negotiates the version and the
 * client's capabilities once; the session is every request's scope (and holds the log level
 * set with `logging/setLevel`); server-to-client requests go out on the same connection.
 */
export const handshakeEra: Era = {
  name: 'handshake',
  refusal: (source, method) =>
    source.session.state === 'awaiting-initialize' && method !== 'ping' ? `Server not initialized: send "initialize" before "${method}"` : undefined,
  scope: (source) => source.session,
  channel: (source) => source.channel,
};

const eras: ReadonlyMap<EraName, Era> = new Map([[handshakeEra.name, handshakeEra]]);

/**
 * The era a request is served in, picked per request: the one of the version the request
 * names in `_meta["io.modelcontextprotocol/protocolVersion"]`, else the handshake era of its
 * connection. Costs one property read for a request without `_meta`.
 */
export function eraOf(params: Record<string, unknown>): Era {
  const requested = requestedEra(params);
  return (requested === undefined ? undefined : eras.get(requested)) ?? handshakeEra;
}
