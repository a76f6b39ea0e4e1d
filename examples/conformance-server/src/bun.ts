import { createConformanceServer } from './server';

declare const Bun: {
  env: Record<string, string | undefined>;
  serve(options: { hostname: string; port: number; fetch: (request: Request) => Promise<Response> }): { port: number };
};

// The conformance server on Bun.serve (typemcp build --target bun): scripts/conformance.sh with CONFORMANCE_RUNTIME=bun.
const listener = Bun.serve({ hostname: '127.0.0.1', port: Number(Bun.env.PORT ?? 3001), fetch: createConformanceServer().fetchHandler({ path: '/mcp' }) });
console.error(`conformance-server (Bun): serving MCP (Streamable HTTP) at http://127.0.0.1:${listener.port}/mcp`);
