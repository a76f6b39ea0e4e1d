import { InvalidParamsError, InvalidRequestError } from '../../errors';
import { isServedVersion, LATEST_HANDSHAKE_VERSION, revisionOf } from '../../protocol';
import type { Revision } from '../../protocol';
import type { ClientCapabilities, Implementation, LoggingLevel, Session } from '../../session';
import type { ServerDescription } from '../EraCodec';
import { handshakeCodec } from './codec';

/** What a session record of a cluster holds of the session's handshake. */
export interface HandshakeRecord {
  protocolVersion: string;
  clientCapabilities: Record<string, unknown>;
  clientInfo?: Implementation;
  state: 'initializing' | 'ready';
  logLevel?: LoggingLevel;
  subscriptions: readonly string[];
}

/** The requested version when served, else the newest (the client then decides whether to go on). */
function negotiate(requested: unknown): Revision {
  return revisionOf(isServedVersion(requested) ? requested : LATEST_HANDSHAKE_VERSION);
}

/**
 * The handshake era's session lifecycle, as connections run it: `initialize` and
 * `notifications/initialized`, sessions restored from a cluster's record or assumed for
 * stateless HTTP, and which sessions may send batches.
 */
export const sessionLifecycle = {
  codec: handshakeCodec,

  /** The revision of a session until `initialize` negotiates one. */
  initialRevision: revisionOf(LATEST_HANDSHAKE_VERSION),

  /**
   * Runs `initialize` on the session: negotiates the revision, records the client, and
   * returns the result, which tells the client the server's capabilities.
   */
  initialize(session: Session, params: Record<string, unknown>, server: ServerDescription): Record<string, unknown> {
    if (session.state !== 'awaiting-initialize') throw new InvalidRequestError('The session is already initialized');
    const problem = checkInitializeParams(params);
    if (problem) throw new InvalidParamsError(`Invalid initialize params: ${problem}`);
    session.revision = negotiate(params.protocolVersion);
    session.clientCapabilities = params.capabilities as ClientCapabilities;
    session.clientInfo = params.clientInfo as Implementation;
    session.state = 'initializing';
    return handshakeCodec.describe(server, session.revision);
  },

  /** `notifications/initialized`: the session is ready; true when that changed it. */
  initialized(session: Session): boolean {
    if (session.state !== 'initializing') return false;
    session.state = 'ready';
    return true;
  },

  /**
   * Serves a session without a handshake, as if `initialize` had negotiated `protocolVersion`
   * with a client of unknown capabilities: for stateless HTTP, where every request stands alone.
   */
  assume(session: Session, protocolVersion: string): void {
    session.revision = negotiate(protocolVersion);
    session.state = 'ready';
    session.stateless = true;
  },

  /** Continues a session another replica opened, from its shared record. */
  restore(session: Session, record: HandshakeRecord): void {
    session.revision = negotiate(record.protocolVersion);
    session.clientCapabilities = record.clientCapabilities;
    session.clientInfo = record.clientInfo;
    session.state = record.state;
    session.logLevel = record.logLevel;
    for (const uri of record.subscriptions) session.subscriptions.add(uri);
  },

  /** Why a batch of `size` messages is refused on this session, or undefined when it may be served. */
  batchRefusal(session: Session, size: number): string | undefined {
    if (size === 0) return 'an empty batch';
    if (session.state === 'awaiting-initialize') return 'JSON-RPC batches are not supported in protocol version (none negotiated yet)';
    if (!session.revision.batching) return `JSON-RPC batches are not supported in protocol version ${session.protocolVersion}`;
    return undefined;
  },
};

function checkInitializeParams(params: Record<string, unknown>): string | undefined {
  if (typeof params.protocolVersion !== 'string') return '"protocolVersion" must be a string';
  if (typeof params.capabilities !== 'object' || params.capabilities === null || Array.isArray(params.capabilities)) {
    return '"capabilities" must be an object';
  }
  const info = params.clientInfo as Record<string, unknown> | undefined;
  if (typeof info !== 'object' || info === null || typeof info.name !== 'string' || typeof info.version !== 'string') {
    return '"clientInfo" must be an object with string "name" and "version"';
  }
  return undefined;
}
