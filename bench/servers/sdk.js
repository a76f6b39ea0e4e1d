'use strict';
/**
 * The same bench server with the official SDK (@modelcontextprotocol/sdk 1.x, a root dev
 * dependency): McpServer with zod schemas. One `echo` tool, one resource, one prompt;
 * `BENCH_TOOLS=N` adds N more tools for the tools/list figures (the SDK does not paginate).
 *
 *   node bench/servers/sdk.js          StdioServerTransport
 *   node bench/servers/sdk.js --http   StreamableHTTPServerTransport, stateless
 *                                      (sessionIdGenerator: undefined), JSON responses, on
 *                                      node:http at 127.0.0.1, a free port; per request a new
 *                                      server and transport, as the SDK's stateless example does
 *                                      (prints "LISTENING <port>" on stdout)
 */
const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
const { z } = require('zod');

const extraTools = Number(process.env.BENCH_TOOLS || 0);

function buildServer() {
  const server = new McpServer({ name: 'sdk-bench', version: '1.0.0' });
  const echo = async ({ text }) => ({ content: [{ type: 'text', text }] });
  server.registerTool('echo', { description: 'Echoes the text back', inputSchema: { text: z.string() } }, echo);
  for (let i = 0; i < extraTools; i++) {
    server.registerTool(`tool_${i}`, { description: `Bench tool number ${i}`, inputSchema: { text: z.string() } }, echo);
  }
  server.registerResource('info', 'bench://info', { mimeType: 'text/plain' }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'bench server' }],
  }));
  server.registerPrompt('greet', { description: 'Greets someone', argsSchema: { name: z.string() } }, ({ name }) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `Say hello to ${name}` } }],
  }));
  return server;
}

if (process.argv.includes('--http')) {
  const http = require('node:http');
  const { StreamableHTTPServerTransport } = require('@modelcontextprotocol/sdk/server/streamableHttp.js');
  const httpServer = http.createServer((req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(405).end();
      return;
    }
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', async () => {
      const server = buildServer();
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        await server.connect(transport);
        await transport.handleRequest(req, res, body);
      } catch (error) {
        if (!res.headersSent) {
          res.writeHead(500, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal server error' }, id: null }));
        }
      }
    });
  });
  httpServer.listen(0, '127.0.0.1', () => process.stdout.write(`LISTENING ${httpServer.address().port}\n`));
  process.on('SIGTERM', () => process.exit(0));
} else {
  const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');
  void buildServer().connect(new StdioServerTransport());
  process.stdin.on('end', () => process.exit(0));
  process.on('SIGTERM', () => process.exit(0));
}
