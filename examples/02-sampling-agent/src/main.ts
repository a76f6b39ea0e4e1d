import { createAgentServer } from './server';

process.stderr.write(
  `sampling-agent: serving MCP over stdio. It needs a client that supports sampling with tools (sampling.tools).\n` +
    `Connect a client by having it spawn: node ${process.argv[1]}\n`,
);
void createAgentServer().listen({ transport: 'stdio' });
