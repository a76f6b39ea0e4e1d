import { ClientCapabilityError } from '../errors';
import type { Context } from '../runtime/Context';

/**
 * A handshake-era client served without sessions (stateless HTTP) declared nothing the request
 * can see, and no answer could come back to it: asking it is refused with what would work.
 */
export function statelessRefusal(ctx: Context, capability: string, what: string): ClientCapabilityError | undefined {
  if (!ctx.session?.stateless) return undefined;
  return new ClientCapabilityError(
    capability,
    `This server serves handshake-era clients without sessions (stateless HTTP), so a request cannot ask the client ${what}: ` +
      'a client at protocol 2026-07-28 can be asked (multi round-trip), or serve with sessions',
  );
}
