import { createWeatherServer } from './server';

const entry = process.argv[1];
process.stderr.write(
  [
    'weather: serving MCP over stdio (newline-delimited JSON-RPC on stdin/stdout).',
    'Connect a client by having it spawn this process, e.g. in an MCP client config:',
    `  { "command": "node", "args": ["${entry}"] }`,
    'Or type a request here, e.g.:',
    '  {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"me","version":"1"}}}',
    '',
  ].join('\n'),
);

void createWeatherServer().listen({ transport: 'stdio' });
