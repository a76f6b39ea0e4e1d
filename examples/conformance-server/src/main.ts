import path from 'node:path';
import { createConformanceServer } from './server';

// listen() closes the server and exits on SIGINT/SIGTERM (scripts/conformance.sh stops it so).
createConformanceServer({ skillsFolder: path.join(__dirname, '..', 'skills') })
  .listen({ transport: 'http', host: '127.0.0.1', port: Number(process.env.PORT ?? 3001), path: '/mcp' })
  .then(
    (address) => process.stderr.write(`conformance-server: serving MCP (Streamable HTTP) at ${address.url}\n`),
    (error: unknown) => {
      process.stderr.write(`conformance-server: cannot listen: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
