import path from 'node:path';
import { serveFetch } from '@typemcp/testing';
import { createConformanceServer } from './server';

/**
 * The conformance server through `server.fetchHandler()`: the Fetch API handler a Worker, Bun
 * or Deno would be given, served here on Node's own `Request` and `Response` (serveFetch of
 * @typemcp/testing bridges node:http to them). No httpHandler() is in between.
 */
const server = createConformanceServer({ skillsFolder: path.join(__dirname, '..', 'skills') });
const handler = server.fetchHandler({ path: '/mcp' });

void serveFetch(handler, { port: Number(process.env.PORT ?? 3001) }).then((http) => {
  process.stderr.write(`conformance-server (fetchHandler): serving MCP (Streamable HTTP) at ${http.origin}/mcp\n`);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => void Promise.all([server.close(), http.close()]).finally(() => process.exit(0)));
  }
});
