'use strict';
/**
 * The floor: what Node itself can do. A minimal hand-written MCP server with no framework and
 * no validation beyond what is needed: initialize, tools/list (paged like the others, 100 per
 * page) and tools/call of `echo`. `BENCH_TOOLS=N` adds N more tools for the tools/list figures.
 *
 *   node bench/servers/floor.js          newline-delimited JSON-RPC on stdin/stdout
 *   node bench/servers/floor.js --http   node:http on 127.0.0.1, a free port; answers a POST
 *                                        carrying one JSON-RPC message with JSON
 *                                        (prints "LISTENING <port>" on stdout)
 */
const PAGE_SIZE = 100;
const extraTools = Number(process.env.BENCH_TOOLS || 0);
const inputSchema = {
  type: 'object',
  properties: { text: { type: 'string' } },
  required: ['text'],
  additionalProperties: false,
};
const tools = [{ name: 'echo', description: 'Echoes the text back', inputSchema }];
for (let i = 0; i < extraTools; i++) tools.push({ name: `tool_${i}`, description: `Bench tool number ${i}`, inputSchema });
const toolNames = new Set(tools.map((t) => t.name));

function handle(message) {
  const { id, method, params } = message;
  if (id === undefined) return undefined; // notifications need no answer
  switch (method) {
    case 'initialize':
      return {
        jsonrpc: '2.0',
        id,
        result: {
          protocolVersion: params.protocolVersion,
          capabilities: { tools: {} },
          serverInfo: { name: 'floor', version: '1.0.0' },
        },
      };
    case 'tools/list': {
      const start = params && params.cursor ? Number(params.cursor) : 0;
      const result = { tools: tools.slice(start, start + PAGE_SIZE) };
      if (start + PAGE_SIZE < tools.length) result.nextCursor = String(start + PAGE_SIZE);
      return { jsonrpc: '2.0', id, result };
    }
    case 'tools/call': {
      if (!toolNames.has(params.name)) {
        return { jsonrpc: '2.0', id, error: { code: -32602, message: `Unknown tool: ${params.name}` } };
      }
      const args = params.arguments;
      if (!args || typeof args.text !== 'string') {
        return { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: '"text" must be a string' }], isError: true } };
      }
      return { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: args.text }] } };
    }
    case 'ping':
      return { jsonrpc: '2.0', id, result: {} };
    default:
      return { jsonrpc: '2.0', id, error: { code: -32601, message: `Method not found: ${method}` } };
  }
}

if (process.argv.includes('--http')) {
  const http = require('node:http');
  const server = http.createServer((req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(405).end();
      return;
    }
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      let response;
      try {
        response = handle(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch {
        response = { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' } };
      }
      if (response === undefined) {
        res.writeHead(202).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(response));
    });
  });
  server.listen(0, '127.0.0.1', () => process.stdout.write(`LISTENING ${server.address().port}\n`));
  process.on('SIGTERM', () => process.exit(0));
} else {
  let buffered = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk) => {
    const lines = (buffered + chunk).split('\n');
    buffered = lines.pop();
    let out = '';
    for (const line of lines) {
      if (line === '') continue;
      let response;
      try {
        response = handle(JSON.parse(line));
      } catch {
        response = { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } };
      }
      if (response !== undefined) out += JSON.stringify(response) + '\n';
    }
    // One write per chunk read: everything answered in this tick leaves together.
    if (out !== '') process.stdout.write(out);
  });
  process.stdin.on('end', () => process.exit(0));
  process.on('SIGTERM', () => process.exit(0));
}
