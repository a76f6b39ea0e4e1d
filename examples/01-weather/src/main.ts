import { createWeatherServer } from './server';

const server = createWeatherServer();

if (process.argv.includes('--stdio')) {
  process.stderr.write(
    [
      'weather: serving MCP over stdio (newline-delimited JSON-RPC on stdin/stdout).',
      `Connect a client by having it spawn this process: { "command": "node", "args": ["${process.argv[1]}", "--stdio"] }`,
      '',
    ].join('\n'),
  );
  void server.listen({ transport: 'stdio' });
} else {
  const port = Number(process.env.PORT ?? 3000);
  void server.listen({ transport: 'http', host: '127.0.0.1', port }).then(({ url }) => {
    process.stderr.write(
      [
        `weather: serving MCP (Streamable HTTP, and HTTP+SSE at /sse for older clients) at ${url}`,
        `Connect a client to that URL, e.g.: npx -y -p node@22 -p @modelcontextprotocol/inspector@2.12.0 mcp-inspector --transport http --server-url ${url}`,
        `or in a client config: { "type": "http", "url": "${url}" }. Stop with Ctrl+C.`,
        `Run "node ${process.argv[1]} --stdio" to serve over stdio instead.`,
        '',
      ].join('\n'),
    );
  }, (error: Error & { code?: string }) => {
    // One line and exit 1, not a stack trace: the usual cause is a port already taken.
    process.stderr.write(`weather: ${error.message}${error.code === 'EADDRINUSE' ? ` Another port: PORT=${port + 1}` : ''}\n`);
    process.exit(1);
  });
}
