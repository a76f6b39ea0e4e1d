import type { McpServer } from '@typemcp/core';

/** What the upstream says of itself that the proxy's clients are told as the proxy's own. */
export interface MirroredIdentity {
  title?: string;
  instructions?: string;
}

/**
 * Tells the proxy's clients the upstream's title and instructions (each unless the proxy's
 * own options set it), from the next `initialize` or `server/discover` on; a title or
 * instructions the upstream no longer has are dropped.
 */
export function mirrorIdentity(server: McpServer, upstream: MirroredIdentity, own: { title: boolean; instructions: boolean }): void {
  const update: { title?: string; instructions?: string } = {};
  if (!own.title) update.title = upstream.title;
  if (!own.instructions) update.instructions = upstream.instructions;
  server.describeAs(update);
}
