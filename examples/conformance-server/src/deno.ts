import { createConformanceServer } from './server';

declare const Deno: {
  env: { get(name: string): string | undefined };
  serve(options: { hostname: string; port: number; onListen?: (address: { port: number }) => void }, handler: (request: Request) => Promise<Response>): unknown;
};

// The conformance server on Deno.serve (typemcp build --target deno): scripts/conformance.sh with CONFORMANCE_RUNTIME=deno.
Deno.serve(
  {
    hostname: '127.0.0.1',
    port: Number(Deno.env.get('PORT') ?? 3001),
    onListen: ({ port }) => console.error(`conformance-server (Deno): serving MCP (Streamable HTTP) at http://127.0.0.1:${port}/mcp`),
  },
  createConformanceServer().fetchHandler({ path: '/mcp' }),
);
