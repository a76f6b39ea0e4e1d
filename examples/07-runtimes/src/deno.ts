import { createNotesServer } from './server';

/** The part of Deno's API this entry uses (its types are not installed: tsc compiles this for Deno to run). */
declare const Deno: {
  env: { get(name: string): string | undefined };
  serve(
    options: { hostname: string; port: number; onListen?: (address: { port: number }) => void },
    handler: (request: Request) => Promise<Response>,
  ): { shutdown(): Promise<void> };
  addSignalListener(signal: 'SIGINT' | 'SIGTERM', handler: () => void): void;
  exit(code: number): never;
};

// Deno: Deno.serve takes the server's Fetch API handler as it is.
const server = createNotesServer({ secret: Deno.env.get('MCP_REQUEST_STATE_SECRET') });
const listener = Deno.serve(
  { hostname: '127.0.0.1', port: Number(Deno.env.get('PORT') ?? 3000), onListen: ({ port }) => console.error(`notes: serving MCP at http://127.0.0.1:${port}/mcp`) },
  server.fetchHandler({ stateless: Deno.env.get('MCP_STATELESS') === '1' }),
);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  Deno.addSignalListener(signal, () => void Promise.all([server.close(), listener.shutdown()]).finally(() => Deno.exit(0)));
}
