import type { FetchHandler } from '@typemcp/core';
import { createNotesServer } from './server';

interface Env {
  /** `npx wrangler secret put MCP_REQUEST_STATE_SECRET` (.dev.vars locally): the same for every isolate. */
  MCP_REQUEST_STATE_SECRET?: string;
}

let handler: FetchHandler | undefined;

/**
 * Cloudflare Workers: nothing at module scope (a Worker may not make random values or timers
 * there); the server is made on the isolate's first request, from the Worker's env. Stateless:
 * a client's requests may reach different isolates, so handshake-era clients get no sessions
 * (2026-07-28 needs none).
 */
export default {
  fetch(request: Request, env: Env): Promise<Response> {
    handler ??= createNotesServer({ secret: env.MCP_REQUEST_STATE_SECRET }).fetchHandler({ stateless: true });
    return handler(request);
  },
};
