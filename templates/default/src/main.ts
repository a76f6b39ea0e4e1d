import { createServer } from './server.js';

// Started with --http it serves Streamable HTTP on 127.0.0.1:$PORT, with --stdio it serves
// stdio; with neither, the transport chosen when the project was created.
const DEFAULT_TRANSPORT: 'stdio' | 'http' = 'stdio';

const server = createServer();
const transport = process.argv.includes('--http') ? 'http' : process.argv.includes('--stdio') ? 'stdio' : DEFAULT_TRANSPORT;

if (transport === 'http') {
  const port = Number(process.env.PORT ?? 3000);
  void server.listen({ transport: 'http', host: '127.0.0.1', port }).then(({ url }) => {
    process.stderr.write(`serving MCP over Streamable HTTP at ${url}\n`);
  });
} else {
  void server.listen({ transport: 'stdio' });
}
