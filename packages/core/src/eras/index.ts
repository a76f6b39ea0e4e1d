import { isModernVersion, isServedVersion, LATEST_HANDSHAKE_VERSION, PROTOCOL_VERSION_META, revisionOf, SUPPORTED_VERSIONS } from '../protocol';
import type { RequestScope, Session } from '../session';
import type { EraCodec } from './EraCodec';
import { handshakeCodec } from './handshake/codec';
import { modernCodec } from './modern/codec';

export type { EraCodec, EraSource, Prepared, ResultHints, RouteEras, ServerDescription, TaskCaller, TaskWire } from './EraCodec';
export { sessionLifecycle } from './handshake/lifecycle';
export type { HandshakeRecord } from './handshake/lifecycle';
export { modernSettings } from './modern/settings';
export type { CacheableMethod, CacheHint, ModernOptions, ModernSettings } from './modern/settings';
export { INPUT_REQUIRED_METHODS } from './modern/InputRound';
export type { InputRequiredResult } from './modern/InputRound';

/**
 * The codec of the era a request names: 2026-07-28 when its params name a protocol version in
 * `_meta["io.modelcontextprotocol/protocolVersion"]` (served or not: that codec refuses an
 * unknown one with -32022), else the handshake era of its connection. Costs one property read
 * for a request without `_meta`.
 */
export function codecOf(params: Record<string, unknown>): EraCodec {
  const meta = params._meta;
  if (typeof meta !== 'object' || meta === null) return handshakeCodec;
  return (meta as Record<string, unknown>)[PROTOCOL_VERSION_META] === undefined ? handshakeCodec : modernCodec;
}

/** The protocol versions `server/discover` names: what a server card says its endpoints support. */
export function servedVersions(): readonly string[] {
  return SUPPORTED_VERSIONS;
}

/** What a request's scope keeps when it is saved (a task, to run again later, maybe elsewhere). */
export interface SavedScope {
  /** Absent in a record that kept none: the newest handshake revision is assumed. */
  readonly protocolVersion?: string;
  readonly clientCapabilities: Record<string, unknown>;
  readonly clientInfo?: Record<string, unknown>;
}

/**
 * The scope and codec of a saved request: its live session's when there is one, else its
 * saved revision's (one no longer served falls back to the newest handshake revision).
 */
export function restoreScope(saved: SavedScope, session: Session | undefined): { scope: RequestScope; codec: EraCodec } {
  if (session) return { scope: session, codec: handshakeCodec };
  const version = saved.protocolVersion;
  const revision = revisionOf(version !== undefined && (isModernVersion(version) || isServedVersion(version)) ? version : LATEST_HANDSHAKE_VERSION);
  const scope: RequestScope = {
    protocolVersion: revision.version,
    revision,
    clientCapabilities: saved.clientCapabilities,
    clientInfo: saved.clientInfo as RequestScope['clientInfo'],
    logLevel: undefined,
    session: undefined,
  };
  return { scope, codec: revision.era === 'modern' ? modernCodec : handshakeCodec };
}
export { isModernBatch, isSessionless, sessionlessVersion, statelessVersion } from './http';
