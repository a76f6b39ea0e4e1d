import type { McpServer } from '@typemcp/core';

/** What the upstream says of itself that the proxy's clients are told as the proxy's own. */
export interface MirroredIdentity {
  title?: string;
  instructions?: string;
}

/**
 * The parts of a server's description its codecs put on the wire: `serverInfo` (handshake
 * `initialize`), the 2026-07-28 `serverInfo` of every result and of `server/discover`, and the
 * instructions. The server's own options fill them at construction; a proxy learns its
 * upstream's only once connected.
 */
interface Description {
  info: { title?: string };
  instructions?: string;
  modern: { serverInfo: { title?: string }; discoverInfo: { title?: string } };
}

/**
 * Tells the proxy's clients the upstream's title and instructions (each unless the proxy's
 * own options set it), from the next `initialize` or `server/discover` on; a title or
 * instructions the upstream no longer has are dropped.
 */
export function mirrorIdentity(server: McpServer, upstream: MirroredIdentity, own: { title: boolean; instructions: boolean }): void {
  const description = (server as unknown as { runtime: Description }).runtime;
  if (!own.title) {
    for (const info of [description.info, description.modern.serverInfo, description.modern.discoverInfo]) {
      if (upstream.title === undefined) delete info.title;
      else info.title = upstream.title;
    }
  }
  if (!own.instructions) description.instructions = upstream.instructions;
}
