import { createServer } from './server.js';

/** The part of Deno's API this entry uses (tsc compiles it; Deno runs the output, dist/main.js). */
declare const Deno: {
  env: { get(name: string): string | undefined };
  serve(options: { hostname: string; port: number; onListen?: (address: { port: number }) => void }, handler: (request: Request) => Promise<Response>): unknown;
};

// Started with --http it serves Streamable HTTP on 127.0.0.1:$PORT through Deno.serve, with
// --stdio it serves stdio; with neither, the transport chosen when the project was created.
const DEFAULT_TRANSPORT: 'stdio' | 'http' = 'stdio';

const server = createServer();
const transport = process.argv.includes('--http') ? 'http' : process.argv.includes('--stdio') ? 'stdio' : DEFAULT_TRANSPORT;

if (transport === 'http') {
  Deno.serve(
    { hostname: '127.0.0.1', port: Number(Deno.env.get('PORT') ?? 3000), onListen: ({ port }) => console.error(`serving MCP over Streamable HTTP at http://127.0.0.1:${port}/mcp`) },
    server.fetchHandler(),
  );
} else {
  void server.listen({ transport: 'stdio' });
}
