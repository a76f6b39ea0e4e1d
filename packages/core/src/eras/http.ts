import { InvalidParamsError } from '../errors';
import { HANDSHAKE_VERSIONS, isModernVersion, isServedVersion, PROTOCOL_VERSION_META, VERSION_WITHOUT_HEADER } from '../protocol';

/**
 * Streamable HTTP serves a single request without a session when it speaks 2026-07-28 or
 * later: its body names a version in `_meta`, or its `MCP-Protocol-Version` header names a
 * version without a handshake.
 */
export function isSessionless(versionHeader: string | undefined, payload: unknown): boolean {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload) || typeof (payload as { method?: unknown }).method !== 'string') return false;
  return namesVersionInMeta(payload) || (versionHeader !== undefined && isModernVersion(versionHeader.trim()));
}

/** Whether a message names its protocol version in `params._meta`, as only 2026-07-28 requests do. */
function namesVersionInMeta(message: unknown): boolean {
  const params = typeof message === 'object' && message !== null ? (message as { params?: unknown }).params : undefined;
  const meta = typeof params === 'object' && params !== null ? (params as { _meta?: unknown })._meta : undefined;
  return typeof meta === 'object' && meta !== null && !Array.isArray(meta) && (meta as Record<string, unknown>)[PROTOCOL_VERSION_META] !== undefined;
}

/**
 * A JSON-RPC batch that speaks 2026-07-28 (by its header, or a message's `_meta`): batches exist
 * only in 2025-03-26, so it is an invalid request, not one that lacks a session.
 */
export function isModernBatch(versionHeader: string | undefined, payload: unknown): boolean {
  if (!Array.isArray(payload)) return false;
  if (versionHeader !== undefined && isModernVersion(versionHeader.trim())) return true;
  return payload.some(namesVersionInMeta);
}

/**
 * The handshake-era version a request without a session speaks: its `MCP-Protocol-Version`
 * header's, 2025-03-26 when it has none (the transport's rule); a refusal for a version this
 * server does not serve.
 */
export function statelessVersion(versionHeader: string | undefined): { version: string; refused?: undefined } | { refused: string } {
  if (versionHeader === undefined) return { version: VERSION_WITHOUT_HEADER };
  if (isServedVersion(versionHeader)) return { version: versionHeader };
  return { refused: `unsupported MCP-Protocol-Version ${JSON.stringify(versionHeader)} (supported: ${HANDSHAKE_VERSIONS.join(', ')})` };
}

/**
 * The version a request served without a session names in its `_meta`, which its
 * `MCP-Protocol-Version` header must mirror; throws -32602 when it names none.
 */
export function sessionlessVersion(params: Record<string, unknown>): string {
  const meta = params._meta;
  const version = typeof meta === 'object' && meta !== null && !Array.isArray(meta) ? (meta as Record<string, unknown>)[PROTOCOL_VERSION_META] : undefined;
  if (typeof version !== 'string') throw new InvalidParamsError(`Invalid params: a 2026-07-28 request names its version, a string, in _meta["${PROTOCOL_VERSION_META}"]`);
  return version;
}
