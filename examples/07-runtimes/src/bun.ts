import { createNotesServer } from './server';

/** The part of Bun's API this entry uses (its types are not installed: tsc compiles this for Bun to run). */
declare const Bun: {
  env: Record<string, string | undefined>;
  serve(options: { hostname: string; port: number; fetch: (request: Request) => Promise<Response> }): { port: number; stop(force?: boolean): void };
};

// Bun: Bun.serve takes the server's Fetch API handler as it is.
const server = createNotesServer({ secret: Bun.env.MCP_REQUEST_STATE_SECRET });
const listener = Bun.serve({ hostname: '127.0.0.1', port: Number(Bun.env.PORT ?? 3000), fetch: server.fetchHandler({ stateless: Bun.env.MCP_STATELESS === '1' }) });
console.error(`notes: serving MCP at http://127.0.0.1:${listener.port}/mcp`);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => void server.close().finally(() => {
    listener.stop(true);
    process.exit(0);
  }));
}
