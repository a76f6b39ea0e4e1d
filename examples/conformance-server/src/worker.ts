import type { FetchHandler } from '@typemcp/core';
import { createConformanceServer } from './server';

let handler: FetchHandler | undefined;

// The conformance server on Cloudflare Workers (typemcp build --target workers, wrangler dev):
// scripts/conformance.sh with CONFORMANCE_RUNTIME=workers. Made on the first request.
export default {
  fetch(request: Request, env: { MCP_REQUEST_STATE_SECRET?: string }): Promise<Response> {
    handler ??= createConformanceServer({ secret: env.MCP_REQUEST_STATE_SECRET }).fetchHandler({ path: '/mcp' });
    return handler(request);
  },
};
