/**
 * The echo tool of the bench on the official SDK v2 (`@modelcontextprotocol/server`), served
 * the way that SDK serves on Bun: `createMcpHandler` (a server instance per request) handed to
 * `Bun.serve`. Prints "LISTENING <port>". For bench/runtimes.js (tools/call req/s on Bun).
 *
 *   bun bench/servers/sdk-v2-fetch.mjs
 */
import { createMcpHandler, fromJsonSchema, McpServer } from '@modelcontextprotocol/server';

const input = fromJsonSchema({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'] });

const handler = createMcpHandler(() => {
  const server = new McpServer({ name: 'sdk-v2-bench', version: '1.0.0' });
  server.registerTool('echo', { description: 'Echoes the text back', inputSchema: input }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
  return server;
});

const listener = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: handler.fetch });
process.stdout.write(`LISTENING ${listener.port}\n`);
