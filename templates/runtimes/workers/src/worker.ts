import type { FetchHandler } from '@typemcp/core';
import { createServer } from './server.js';

interface Env {
  /** `npx wrangler secret put MCP_REQUEST_STATE_SECRET`; locally in dist/bundle/.dev.vars. The same for every isolate. */
  MCP_REQUEST_STATE_SECRET?: string;
}

let handler: FetchHandler | undefined;

/**
 * The Worker: the server is made on the isolate's first request, from the Worker's env (a
 * Worker may not make random values or timers in its global scope). Handshake-era clients are
 * served without sessions: isolates share no memory. 2026-07-28 clients need none.
 */
export default {
  fetch(request: Request, env: Env): Promise<Response> {
    handler ??= createServer({ secret: env.MCP_REQUEST_STATE_SECRET }).fetchHandler({ stateless: true, legacySse: false });
    return handler(request);
  },
};
