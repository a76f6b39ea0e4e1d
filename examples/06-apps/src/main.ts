import { createAppsServer } from './server';

const server = createAppsServer();

if (process.argv.includes('--stdio')) {
  void server.listen({ transport: 'stdio' });
} else {
  const port = Number(process.env.PORT ?? 3000);
  void server.listen({ transport: 'http', host: '127.0.0.1', port }).then(({ url }) => {
    process.stderr.write(
      [
        `counter: serving MCP with an MCP App at ${url}`,
        `Connect a host that renders MCP Apps to that URL; the UI appears with show_counter.`,
        `Run "node ${process.argv[1]} --stdio" to serve over stdio.`,
        '',
      ].join('\n'),
    );
  }, (error: Error & { code?: string }) => {
    // One line and exit 1, not a stack trace: the usual cause is a port already taken.
    process.stderr.write(`counter: ${error.message}${error.code === 'EADDRINUSE' ? ` Another port: PORT=${port + 1}` : ''}\n`);
    process.exit(1);
  });
}
