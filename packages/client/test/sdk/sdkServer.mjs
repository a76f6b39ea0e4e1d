// The official SDK v2 server (@modelcontextprotocol/server) serving one set of tools, a
// resource and a prompt to both eras: `--stdio` through serveStdio, otherwise over HTTP on
// 127.0.0.1 (a free port, printed as its URL): 2026-07-28 through createMcpHandler, the
// handshake era through a sessionful WebStandardStreamableHTTPServerTransport, so that the
// server's questions (elicitation, sampling) reach the client in both.
import { randomUUID } from 'node:crypto';
import { serve } from '@hono/node-server';
import { acceptedContent, createMcpHandler, inputRequired, isLegacyRequest, McpServer, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

const colourSchema = { type: 'object', properties: { colour: { type: 'string' } }, required: ['colour'] };
const samplingParams = { messages: [{ role: 'user', content: { type: 'text', text: 'Say hi' } }], maxTokens: 10 };

function factory({ era }) {
  const server = new McpServer({ name: 'sdk-server', version: '2.4.0' }, { capabilities: { logging: {} } });
  server.registerTool('add', { description: 'Adds two numbers', inputSchema: z.object({ a: z.number(), b: z.number() }) }, async ({ a, b }) => ({
    content: [{ type: 'text', text: String(a + b) }],
  }));
  server.registerTool('favourite', { description: 'Asks the user for a colour' }, async (ctx) => {
    if (era === 'modern') {
      const answer = acceptedContent(ctx.mcpReq.inputResponses, 'colour');
      if (!answer) return inputRequired({ inputRequests: { colour: inputRequired.elicit({ message: 'Favourite colour?', requestedSchema: colourSchema }) } });
      return { content: [{ type: 'text', text: `colour ${answer.colour}` }] };
    }
    const answer = await ctx.mcpReq.elicitInput({ message: 'Favourite colour?', requestedSchema: colourSchema });
    return { content: [{ type: 'text', text: answer.action === 'accept' ? `colour ${answer.content.colour}` : answer.action } ] };
  });
  server.registerTool('ask', { description: 'Asks the model' }, async (ctx) => {
    let result;
    if (era === 'modern') {
      result = ctx.mcpReq.inputResponses?.model;
      if (!result) return inputRequired({ inputRequests: { model: inputRequired.createMessage(samplingParams) } });
    } else result = await ctx.mcpReq.requestSampling(samplingParams);
    const content = Array.isArray(result.content) ? result.content[0] : result.content;
    return { content: [{ type: 'text', text: `model said ${content.text}` }] };
  });
  server.registerResource('greeting', 'sdk://greeting', { mimeType: 'text/plain' }, async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'hello from the SDK' }] }));
  server.registerPrompt('hello', { description: 'Greets', argsSchema: z.object({ name: z.string() }) }, ({ name }) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `Hello ${name}` } }],
  }));
  return server;
}

if (process.argv.includes('--stdio')) {
  serveStdio(factory);
} else {
  const modern = createMcpHandler(factory, { legacy: 'reject' });
  const sessions = new Map();
  const legacy = async (request) => {
    const id = request.headers.get('mcp-session-id');
    if (id !== null) {
      const transport = sessions.get(id);
      return transport ? transport.handleRequest(request) : new Response('unknown session', { status: 404 });
    }
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (sid) => sessions.set(sid, transport) });
    transport.onclose = () => transport.sessionId && sessions.delete(transport.sessionId);
    await factory({ era: 'legacy' }).connect(transport);
    return transport.handleRequest(request);
  };
  const fetch = async (request) => (request.headers.get('mcp-session-id') !== null || request.method !== 'POST' || (await isLegacyRequest(request)) ? legacy(request) : modern.fetch(request));
  const server = serve({ fetch, port: 0, hostname: '127.0.0.1' }, (info) => console.log(`listening on http://127.0.0.1:${info.port}/mcp`));
  const stop = () => server.close(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.stdin.on('end', stop);
  process.stdin.resume();
}
