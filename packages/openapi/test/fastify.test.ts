import 'reflect-metadata';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { AuthenticationService, McpServer } from '@typemcp/core';
import type { Plugin, Principal } from '@typemcp/core';
import { fromOpenApi } from '@typemcp/openapi';
import type { OpenApiOptions, OpenApiWarning } from '@typemcp/openapi';
import { createTestClient, McpRequestError, serveFetch } from '@typemcp/testing';
import type { CallToolResult, TestClient } from '@typemcp/testing';
import { startPetstore } from './petstore';
import type { Petstore } from './petstore';

let petstore: Petstore;
const open: TestClient[] = [];
const servers: McpServer[] = [];

beforeAll(async () => {
  petstore = await startPetstore();
});

afterAll(async () => {
  await petstore.close();
});

afterEach(async () => {
  await Promise.all(open.splice(0).map((client) => client.close()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const writer: Principal = { subject: 'wendy', scopes: ['pets:write'], claims: {} };

async function serve(options: Partial<OpenApiOptions> = {}): Promise<McpServer> {
  const server = await fromOpenApi({
    spec: petstore.document,
    baseUrl: petstore.url,
    rules: [
      { path: '/admin/**', as: 'exclude' },
      { operationId: 'getStats', as: 'resource', name: 'stats' },
      { operationId: 'petCard', as: 'template' },
    ],
    ...options,
  });
  servers.push(server);
  return server;
}

/** A client of `target`, as `principal` (null: anonymous). */
async function client(target: McpServer, principal: Principal | null = writer): Promise<TestClient> {
  const made = await createTestClient(target, principal ? { principal } : {});
  open.push(made);
  return made;
}

const text = (result: CallToolResult) => (result.content as Array<{ type: string; text?: string }>).map((block) => block.text ?? '').join('\n');
const callsTo = (path: string) => petstore.seen.requests.filter((request) => request.url.split('?')[0] === path).length;

describe('fromOpenApi over a Fastify API', () => {
  it('lists one tool per operation, with schemas, annotations and titles; resources and templates by rule', async () => {
    const mcp = await client(await serve());
    const tools = await mcp.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['listPets', 'createPet', 'getPet', 'deletePet', 'health', 'whoami', 'slow', 'broken']);
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
    expect(byName.listPets.inputSchema).toEqual({
      type: 'object',
      properties: {
        limit: { type: 'integer', minimum: 1, maximum: 100, description: 'At most this many' },
        tag: { type: 'array', items: { type: 'string' }, description: 'Only pets with one of these tags' },
      },
      additionalProperties: false,
    });
    const pet = { type: 'object', required: ['id', 'name'], properties: { id: { type: 'integer' }, name: { type: 'string' }, tag: { type: ['string', 'null'] } }, title: 'Pet' };
    expect(byName.listPets.outputSchema).toEqual({ type: 'object', properties: { result: { type: 'array', items: pet } }, required: ['result'] });
    expect(byName.getPet.outputSchema).toEqual(pet);
    expect(byName.getPet.inputSchema).toMatchObject({ properties: { petId: { type: 'integer', description: 'The pet' } }, required: ['petId'] });
    expect(byName.createPet.inputSchema).toMatchObject({ properties: { body: { type: 'object', required: ['name'] } }, required: ['body'] });
    expect(byName.whoami.inputSchema).toMatchObject({ properties: { 'x-trace': { type: 'string', description: 'A trace id' } } });
    expect(byName.listPets.annotations).toEqual({ title: 'List the pets', readOnlyHint: true, openWorldHint: true });
    expect(byName.listPets.title).toBe('List the pets');
    expect(byName.deletePet.annotations).toEqual({ readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true });
    expect(byName.createPet.annotations).toEqual({ title: 'Add a pet', readOnlyHint: false, openWorldHint: true });

    expect(await mcp.listResources()).toEqual([{ uri: 'openapi://stats', name: 'stats', title: 'How many pets', description: 'How many pets', mimeType: 'application/json' }]);
    const templates = await mcp.listResourceTemplates();
    expect(templates.map((t) => [t.uriTemplate, t.name])).toEqual([['openapi://pets/{petId}/card', 'petCard']]);
  });

  it('calls with path, query and body arguments; JSON answers become structuredContent', async () => {
    const mcp = await client(await serve());
    const listed = await mcp.callTool('listPets', { limit: 5, tag: ['dog', 'cat'] });
    expect(listed.isError).toBeUndefined();
    expect((listed.structuredContent as { result: unknown[] }).result).toHaveLength(3);
    expect(petstore.seen.requests.at(-1)!.url).toBe('/pets?limit=5&tag=dog&tag=cat');
    expect(JSON.parse(text(listed))).toEqual((listed.structuredContent as { result: unknown }).result);

    const one = await mcp.callTool('getPet', { petId: 2 });
    expect(one.structuredContent).toEqual({ id: 2, name: 'Tom', tag: 'cat' });

    const created = await mcp.callTool('createPet', { body: { name: 'Nemo', tag: 'fish' } });
    expect(created.structuredContent).toMatchObject({ name: 'Nemo', tag: 'fish' });
    const stats = await mcp.readResource('openapi://stats');
    expect(stats.contents).toEqual([{ uri: 'openapi://stats', mimeType: 'application/json', text: JSON.stringify({ count: 4 }) }]);
    const card = await mcp.readResource('openapi://pets/1/card');
    expect(card.contents).toEqual([{ uri: 'openapi://pets/1/card', mimeType: 'text/plain', text: 'Rex (dog)' }]);

    const removed = await mcp.callTool('deletePet', { petId: 4 });
    expect(removed).toEqual({ content: [{ type: 'text', text: '204 No Content' }] });
  });

  it('answers invalid arguments with the problems, without calling the API', async () => {
    const mcp = await client(await serve());
    const before = petstore.seen.requests.length;
    const missing = await mcp.callTool('createPet', { body: { tag: 'x' } });
    expect(missing.isError).toBe(true);
    expect(text(missing)).toBe('Invalid arguments for tool "createPet":\n- missing required property "body.name"');
    const wrong = await mcp.callTool('listPets', { limit: 0, colour: 'red' });
    expect(text(wrong)).toContain('unknown property "colour"');
    expect(text(wrong)).toContain('"limit": must be >= 1');
    expect(petstore.seen.requests.length).toBe(before);
  });

  it('answers a status outside 2xx, a network failure and an answer that breaks its schema with isError', async () => {
    const mcp = await client(await serve());
    const missing = await mcp.callTool('getPet', { petId: 99 });
    expect(missing).toEqual({ content: [{ type: 'text', text: `GET ${petstore.url}/pets/99 answered 404 Not Found: {"message":"no such pet"}` }], isError: true });
    await expect(mcp.readResource('openapi://pets/99/card')).rejects.toMatchObject({ code: -32002 });

    const broken = await mcp.callTool('broken');
    expect(broken.isError).toBe(true);
    expect(text(broken)).toBe('Tool "broken" returned a result that does not match its output schema: "n": must be integer');
    expect(broken.structuredContent).toBeUndefined();

    const port = await closedPort();
    const nowhere = await client(await serve({ baseUrl: `http://127.0.0.1:${port}` }));
    const failed = await nowhere.callTool('health');
    expect(failed.isError).toBe(true);
    expect(text(failed)).toMatch(new RegExp(`^GET http://127\\.0\\.0\\.1:${port}/health failed: fetch failed \\(.*ECONNREFUSED`));
  });

  it('sends the headers option, and never the MCP request’s Authorization unless the option returns it', async () => {
    const modernCall = (url: string, headers: Record<string, string>) =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'whoami', ...headers },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'whoami', arguments: { 'x-trace': 't-1' }, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } },
        }),
      }).then(async (response) => ((await response.json()) as { result: { structuredContent: Record<string, unknown> } }).result.structuredContent);

    const plain = await serve({ headers: { 'x-api-key': 'k-123' } });
    const plainHttp = await serveFetch(plain.fetchHandler({ path: '/mcp' }));
    try {
      expect(await modernCall(`${plainHttp.origin}/mcp`, { authorization: 'Bearer mcp-token' })).toEqual({ authorization: null, apiKey: 'k-123', trace: 't-1' });
    } finally {
      await plainHttp.close();
    }

    const exchanged = await serve({
      headers: async (ctx, operation) => ({ authorization: `Bearer api-for-${ctx.httpRequest?.headers.get('authorization')?.slice(7)}`, 'x-api-key': operation.name }),
    });
    const exchangedHttp = await serveFetch(exchanged.fetchHandler({ path: '/mcp' }));
    try {
      expect(await modernCall(`${exchangedHttp.origin}/mcp`, { authorization: 'Bearer mcp-token' })).toEqual({ authorization: 'Bearer api-for-mcp-token', apiKey: 'whoami', trace: 't-1' });
    } finally {
      await exchangedHttp.close();
    }
  });

  it('aborts the HTTP call when the MCP request is cancelled, and gives up after timeoutMs', async () => {
    const mcp = await client(await serve());
    const controller = new AbortController();
    const call = mcp.callTool('slow', {}, { signal: controller.signal });
    await waitFor(() => callsTo('/slow') === 1);
    controller.abort();
    await expect(call).rejects.toThrow();
    await waitFor(() => petstore.seen.abandoned === 1);

    const impatient = await client(await serve({ timeoutMs: 100 }));
    const late = await impatient.callTool('slow');
    expect(late).toEqual({ content: [{ type: 'text', text: `GET ${petstore.url}/slow did not answer within 100 ms` }], isError: true });
  });

  it('shows tools to callers with the OAuth scopes their operation requires; security: [] is public', async () => {
    const authentication: Plugin = {
      name: 'test-auth',
      register: (host) => host.provide(AuthenticationService, { authenticate: () => undefined, challenge: () => 'Bearer' }),
    };
    const server = (await serve()).plugin(authentication);
    const reader = await client(server, { subject: 'rita', scopes: [], claims: {} });
    expect((await reader.listTools()).map((tool) => tool.name)).not.toContain('createPet');
    await expect(reader.callTool('createPet', { body: { name: 'X' } })).rejects.toBeInstanceOf(McpRequestError);
    const allowed = await client(server, writer);
    expect((await allowed.listTools()).map((tool) => tool.name)).toContain('createPet');
    const anonymous = await client(server, null);
    expect((await anonymous.listTools()).map((tool) => tool.name)).toEqual(['health']);
    expect((await anonymous.callTool('health')).structuredContent).toEqual({ ok: true });
  });

  it('mounts into another server under a namespace', async () => {
    const gateway = new McpServer({ name: 'gateway', version: '1.0.0' });
    servers.push(gateway);
    gateway.mount(await serve(), { namespace: 'pets' });
    const mcp = await client(gateway);
    const names = (await mcp.listTools()).map((tool) => tool.name);
    expect(names).toContain('pets_getPet');
    expect((await mcp.callTool('pets_getPet', { petId: 1 })).structuredContent).toEqual({ id: 1, name: 'Rex', tag: 'dog' });
    expect((await mcp.listResources()).map((r) => r.uri)).toEqual(['openapi://pets/stats']);
    expect((await mcp.listResourceTemplates()).map((t) => t.uriTemplate)).toEqual(['openapi://pets/pets/{petId}/card']);
    expect((await mcp.readResource('openapi://pets/pets/2/card')).contents).toEqual([{ uri: 'openapi://pets/pets/2/card', mimeType: 'text/plain', text: 'Tom (cat)' }]);
  });

  it('reads the document from a URL, and calls the API at its origin when the document names no servers', async () => {
    const server = await fromOpenApi({ spec: `${petstore.url}/openapi.json`, rules: [{ operationId: 'getStats', as: 'resource' }] });
    servers.push(server);
    const mcp = await client(server);
    expect((await mcp.callTool('getPet', { petId: 3 })).structuredContent).toEqual({ id: 3, name: 'Fido', tag: 'dog' });
    expect((await mcp.listResources()).map((r) => r.uri)).toEqual(['openapi://stats']);
  });

  it('reads the servers of the document when no baseUrl is given, and reports what it leaves out', async () => {
    const warnings: OpenApiWarning[] = [];
    const server = await fromOpenApi({ spec: { ...petstore.document, servers: [{ url: `${petstore.url}/{prefix}`, variables: { prefix: { default: '' } } }] }, maxTools: 2, onWarning: (w) => warnings.push(w) });
    servers.push(server);
    const mcp = await client(server);
    expect((await mcp.listTools()).map((tool) => tool.name)).toEqual(['listPets', 'createPet']);
    expect((await mcp.callTool('listPets', { limit: 1 })).structuredContent).toEqual({ result: [{ id: 1, name: 'Rex', tag: 'dog' }] });
    expect(warnings).toEqual([
      { code: 'TOO_MANY_TOOLS', message: 'maxTools is 2: 9 more tools are left out (getPet, deletePet, petCard, getStats, health, …); exclude operations with rules to choose which stay' },
    ]);
  });
});

/** A port nothing listens on: one the system just gave out and took back. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > timeoutMs) throw new Error('the condition did not hold in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
