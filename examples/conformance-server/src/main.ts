import { createConformanceServer } from './server';

const server = createConformanceServer();

server
  .listen({ transport: 'http', host: '127.0.0.1', port: Number(process.env.PORT ?? 3001), path: '/mcp' })
  .then(
    (address) => process.stderr.write(`conformance-server: serving MCP (Streamable HTTP) at ${address.url}\n`),
    (error: unknown) => {
      process.stderr.write(`conformance-server: cannot listen: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    const timer = setTimeout(() => process.exit(0), 3000);
    timer.unref();
    void server.close().finally(() => process.exit(0));
  });
}
