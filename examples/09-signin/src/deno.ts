import { notesFromEnvironment } from './environment';

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

// Deno: Deno.serve takes the server's Fetch API handler, which serves the sign-in pages too.
const { server, port, banner } = notesFromEnvironment((name) => Deno.env.get(name));
const listener = Deno.serve({ hostname: '127.0.0.1', port, onListen: (address) => console.error(banner(`http://127.0.0.1:${address.port}/mcp`)) }, server.fetchHandler());
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  Deno.addSignalListener(signal, () => void Promise.all([server.close(), listener.shutdown()]).finally(() => Deno.exit(0)));
}
