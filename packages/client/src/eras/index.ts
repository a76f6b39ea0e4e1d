import { LATEST_HANDSHAKE_VERSION, LATEST_MODERN_VERSION, MODERN_VERSIONS } from '@typemcp/core';
import { ConnectionClosedError } from '../errors';
import type { ClientEra, Link } from './ClientEra';
import { initialize } from './handshake/codec';
import { discover } from './modern/codec';

/**
 * Picks the era of a conversation and opens it, as `ClientOptions.protocolVersion` asks: the
 * newest handshake revision by default; a handshake revision by name; a revision without a
 * handshake (2026-07-28) by name; `auto`: `server/discover` first, `initialize` when the server
 * does not serve 2026-07-28 (an error, or a version list without it).
 */
export async function agree(link: Link): Promise<ClientEra> {
  const wanted = link.options.protocolVersion ?? LATEST_HANDSHAKE_VERSION;
  if (wanted === 'auto') {
    try {
      const era = await discover(link, LATEST_MODERN_VERSION, { fallback: true });
      if (era) return era;
    } catch (error) {
      if (error instanceof ConnectionClosedError) throw error;
    }
    return initialize(link, LATEST_HANDSHAKE_VERSION);
  }
  if ((MODERN_VERSIONS as readonly string[]).includes(wanted)) return (await discover(link, wanted, { fallback: false }))!;
  return initialize(link, wanted);
}

export type { ClientEra, Link, SendOptions } from './ClientEra';
