import { notesFromEnvironment } from './environment';

/** The part of Bun's API this entry uses (its types are not installed: tsc compiles this for Bun to run). */
declare const Bun: {
  env: Record<string, string | undefined>;
  serve(options: { hostname: string; port: number; fetch: (request: Request) => Promise<Response> }): { port: number; stop(force?: boolean): void };
};

// Bun: Bun.serve takes the server's Fetch API handler, which serves the sign-in pages too.
const { server, port, banner } = notesFromEnvironment((name) => Bun.env[name]);
const handler = server.fetchHandler();
const listener = Bun.serve({ hostname: '127.0.0.1', port, fetch: handler });
console.error(banner(`http://127.0.0.1:${listener.port}/mcp`));
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => void server.close().finally(() => {
    listener.stop(true);
    process.exit(0);
  }));
}
