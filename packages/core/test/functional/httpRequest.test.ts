import 'reflect-metadata';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { AuthenticationService, Context, McpServer, metadataStore, Public, Tool } from '@typemcp/core';
import type { Plugin } from '@typemcp/core';
import { createTestClient, serveFetch } from '@typemcp/testing';

/** What a handler and an authentication read of the HTTP request, the same through both adapters. */
let server: McpServer;
let stop: () => Promise<void>;

function declare() {
  metadataStore.clear();
  class Echo {
    @Public()
    @Tool({ description: 'What the request carried' })
    carried(ctx: Context): string {
      const request = ctx.httpRequest;
      return request === undefined ? 'no HTTP request' : `${request.method} ${request.headers.get('X-Tenant') ?? '-'} ${ctx.principal?.subject ?? 'anonymous'}`;
    }
  }
  return Echo;
}

/** Reads the Authorization header by its usual spelling, as a Request's headers allow. */
const bearer: Plugin = {
  name: 'bearer',
  register(host) {
    host.provide(AuthenticationService, {
      authenticate: (req) => {
        const header = req.headers.get('Authorization');
        return header === null ? undefined : { subject: header.replace(/^Bearer /, ''), scopes: [], claims: {} };
      },
      challenge: () => 'Bearer',
      allowAnonymous: true,
    });
  },
};

const modernCall = (url: string, headers: Record<string, string>) =>
  fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'carried',
      ...headers,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'carried', _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } },
    }),
  }).then(async (response) => {
    const body = (await response.json()) as { result?: { content: Array<{ text: string }> }; error?: unknown };
    if (!body.result) throw new Error(`no result: ${JSON.stringify(body)}`);
    return body.result.content[0].text;
  });

afterEach(async () => {
  await stop?.();
  await server?.close();
});

describe.each([
  ['httpHandler (Node)', 'node'],
  ['fetchHandler (Node’s own Request)', 'fetch'],
] as const)('ctx.httpRequest and the authentication over %s', (_label, adapter) => {
  async function serve(): Promise<string> {
    server = new McpServer({ name: 'carrier', version: '1.0.0', providers: [declare()] }).plugin(bearer);
    if (adapter === 'node') {
      const { url } = await server.listen({ transport: 'http', port: 0, handleSignals: false });
      stop = async () => undefined;
      return url;
    }
    const http = await serveFetch(server.fetchHandler({ path: '/mcp' }));
    stop = () => http.close();
    return `${http.origin}/mcp`;
  }

  it('gives a 2026-07-28 request its headers, whatever the case of their names', async () => {
    const url = await serve();
    expect(await modernCall(url, { 'x-tenant': 'acme', authorization: 'Bearer alice' })).toBe('POST acme alice');
    expect(await modernCall(url, {})).toBe('POST - anonymous');
  });

  it('gives the requests of a session the headers of the POST that carried each', async () => {
    const url = await serve();
    const client = new Client({ name: 'c', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { 'X-Tenant': 'globex', Authorization: 'Bearer bob' } } }));
    try {
      const result = await client.callTool({ name: 'carried', arguments: {} });
      expect(result.content).toEqual([{ type: 'text', text: 'POST globex bob' }]);
    } finally {
      await client.close();
    }
  });
});

it('has no HTTP request over stdio or in memory', async () => {
  const client = await createTestClient([declare()]);
  expect((await client.callTool('carried')).content).toEqual([{ type: 'text', text: 'no HTTP request' }]);
  await client.close();
});
