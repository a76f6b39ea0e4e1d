import { createServer } from './server.js';

/** The part of Bun's API this entry uses (Bun runs this file as it is; tsc compiles it for `typemcp build`). */
declare const Bun: {
  env: Record<string, string | undefined>;
  serve(options: { hostname: string; port: number; fetch: (request: Request) => Promise<Response> }): { port: number };
};

// Started with --http it serves Streamable HTTP on 127.0.0.1:$PORT through Bun.serve, with
// --stdio it serves stdio; with neither, the transport chosen when the project was created.
const DEFAULT_TRANSPORT: 'stdio' | 'http' = 'stdio';

const server = createServer();
const transport = process.argv.includes('--http') ? 'http' : process.argv.includes('--stdio') ? 'stdio' : DEFAULT_TRANSPORT;

if (transport === 'http') {
  const listener = Bun.serve({ hostname: '127.0.0.1', port: Number(Bun.env.PORT ?? 3000), fetch: server.fetchHandler() });
  console.error(`serving MCP over Streamable HTTP at http://127.0.0.1:${listener.port}/mcp`);
} else {
  void server.listen({ transport: 'stdio' });
}
