#!/usr/bin/env node
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
  }, (error: Error & { code?: string }) => {
    // One line and exit 1, not a stack trace: the usual cause is a port already taken.
    process.stderr.write(`${error.message}${error.code === 'EADDRINUSE' ? ` Another port: PORT=${port + 1}` : ''}\n`);
    process.exit(1);
  });
} else {
  void server.listen({ transport: 'stdio' });
}
