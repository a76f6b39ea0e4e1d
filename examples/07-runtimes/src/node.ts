import { createNotesServer } from './server';

// Node: listen() serves Streamable HTTP on node:http, and stops on SIGINT/SIGTERM. MCP_STATELESS=1:
// handshake-era clients are served without sessions, as on a platform that keeps no memory.
createNotesServer({ secret: process.env.MCP_REQUEST_STATE_SECRET })
  .listen({ transport: 'http', host: '127.0.0.1', port: Number(process.env.PORT ?? 3000), stateless: process.env.MCP_STATELESS === '1' })
  .then(
    (address) => process.stderr.write(`notes: serving MCP at ${address.url}\n`),
    (error: unknown) => {
      process.stderr.write(`notes: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
