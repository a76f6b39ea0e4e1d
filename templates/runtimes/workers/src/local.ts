import { createServer } from './server.js';

// The Worker's server on Node over stdio, for `npm run inspect` (typemcp inspect) and
// `typemcp call`: the same tools, resources and prompts, without workerd. The Worker itself
// (src/worker.ts) serves Streamable HTTP: `npm start`.
void createServer().listen({ transport: 'stdio' });
