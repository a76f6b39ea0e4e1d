import 'reflect-metadata';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { fromOpenApi } from '@typemcp/openapi';
import type { OpenApiOptions } from '@typemcp/openapi';
import { createTestClient } from '@typemcp/testing';
import type { ListedTool } from '@typemcp/testing';

/** A fetch that answers every call with `body` as JSON and remembers the calls. */
function fakeApi(body: unknown = { ok: true }) {
  const calls: Array<{ url: string; method: string; body?: string }> = [];
  const fetch = (async (url: string, init: RequestInit) => {
    calls.push({ url, method: init.method ?? 'GET', body: typeof init.body === 'string' ? init.body : undefined });
    return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
  }) as unknown as typeof globalThis.fetch;
  return { fetch, calls };
}

async function toolsOf(options: OpenApiOptions): Promise<{ tools: ListedTool[]; call: (name: string, args: Record<string, unknown>) => Promise<Record<string, unknown>>; close: () => Promise<void> }> {
  const server = await fromOpenApi({ baseUrl: 'https://api.example.com', ...options });
  const client = await createTestClient(server);
  const tools = await client.listTools();
  return {
    tools,
    call: (name, args) => client.callTool(name, args) as Promise<Record<string, unknown>>,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

/** Compiles as the 2020-12 meta-schema requires, with the same ajv settings a strict client would use for types. */
function compiles(schema: Record<string, unknown>): void {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  expect(ajv.validateSchema(schema)).toBe(true);
  ajv.compile(schema);
}

const post = (schema: unknown, extra: Record<string, unknown> = {}) => ({
  post: { operationId: 'save', requestBody: { required: true, content: { 'application/json': { schema } } }, responses: { 200: { description: 'ok' } }, ...extra },
});

describe('$ref', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'typemcp-openapi-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('inlines local refs to schemas, parameters and request bodies', async () => {
    const api = fakeApi();
    const { tools, call, close } = await toolsOf({
      fetch: api.fetch,
      spec: {
        openapi: '3.0.3',
        info: { title: 'local', version: '1' },
        paths: {
          '/items/{id}': {
            parameters: [{ $ref: '#/components/parameters/Id' }],
            put: { operationId: 'put', requestBody: { $ref: '#/components/requestBodies/Item' }, responses: { 200: { description: 'ok' } } },
          },
        },
        components: {
          parameters: { Id: { name: 'id', in: 'path', required: true, schema: { $ref: '#/components/schemas/Id' } } },
          requestBodies: { Item: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/Item' } } } } },
          schemas: {
            Id: { type: 'string', pattern: '^[a-z]+$' },
            Item: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, owner: { $ref: '#/components/schemas/Id' } } },
          },
        },
      },
    });
    expect(tools[0].inputSchema).toEqual({
      type: 'object',
      properties: {
        id: { type: 'string', pattern: '^[a-z]+$' },
        body: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, owner: { type: 'string', pattern: '^[a-z]+$' } } },
      },
      required: ['id', 'body'],
      additionalProperties: false,
    });
    await call('put', { id: 'abc', body: { name: 'n' } });
    expect(api.calls).toEqual([{ url: 'https://api.example.com/items/abc', method: 'PUT', body: '{"name":"n"}' }]);
    await close();
  });

  it('loads external files relative to the document, and theirs relative to them', async () => {
    mkdirSync(path.join(dir, 'shared'));
    writeFileSync(path.join(dir, 'shared', 'tag.json'), JSON.stringify({ Tag: { type: 'string', enum: ['a', 'b'] } }));
    writeFileSync(
      path.join(dir, 'shared', 'pet.json'),
      JSON.stringify({ type: 'object', required: ['name'], properties: { name: { type: 'string' }, tag: { $ref: 'tag.json#/Tag' } } }),
    );
    writeFileSync(path.join(dir, 'params.yaml'), 'Limit:\n  name: limit\n  in: query\n  schema:\n    type: integer\n    maximum: 10\n');
    writeFileSync(
      path.join(dir, 'api.json'),
      JSON.stringify({
        openapi: '3.1.0',
        info: { title: 'external', version: '1' },
        servers: [{ url: 'https://pets.example.com/v1' }],
        paths: { '/pets': { parameters: [{ $ref: 'params.yaml#/Limit' }], ...post({ $ref: './shared/pet.json' }) } },
      }),
    );
    const api = fakeApi();
    const server = await fromOpenApi({ spec: path.join(dir, 'api.json'), fetch: api.fetch });
    const client = await createTestClient(server);
    const [tool] = await client.listTools();
    expect(tool.inputSchema).toEqual({
      type: 'object',
      properties: {
        limit: { type: 'integer', maximum: 10 },
        body: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, tag: { type: 'string', enum: ['a', 'b'] } } },
      },
      required: ['body'],
      additionalProperties: false,
    });
    expect((await client.callTool('save', { body: { name: 'x', tag: 'c' } })).isError).toBe(true);
    await client.callTool('save', { limit: 3, body: { name: 'x', tag: 'a' } });
    expect(api.calls.map((c) => c.url)).toEqual(['https://pets.example.com/v1/pets?limit=3']);
    await client.close();
    await server.close();
  });

  it('reads documents and refs through loadRef, with URLs resolved against the document', async () => {
    const asked: string[] = [];
    const files: Record<string, unknown> = {
      'https://specs.example.com/api/openapi.json': JSON.stringify({
        openapi: '3.0.3',
        info: { title: 'remote', version: '1' },
        servers: [{ url: '/v2' }],
        paths: { '/notes': post({ $ref: '../models/note.json#/Note' }) },
      }),
      'https://specs.example.com/models/note.json': { Note: { type: 'object', properties: { text: { type: 'string' } } } },
    };
    const api = fakeApi();
    const server = await fromOpenApi({
      spec: 'https://specs.example.com/api/openapi.json',
      fetch: api.fetch,
      loadRef: (url) => {
        asked.push(url);
        return files[url];
      },
    });
    const client = await createTestClient(server);
    expect((await client.listTools())[0].inputSchema).toMatchObject({ properties: { body: { type: 'object', properties: { text: { type: 'string' } } } } });
    await client.callTool('save', { body: { text: 'hi' } });
    expect(asked).toEqual(['https://specs.example.com/api/openapi.json', 'https://specs.example.com/models/note.json']);
    expect(api.calls[0].url).toBe('https://specs.example.com/v2/notes');
    await client.close();
    await server.close();
  });

  it('writes cyclic schemas as $defs and $ref; the schema compiles and calls validate', async () => {
    const api = fakeApi({ value: 1, children: [{ value: 2, children: [] }] });
    const tree = { type: 'object', required: ['value'], properties: { value: { type: 'integer' }, children: { type: 'array', items: { $ref: '#/components/schemas/Tree' } } } };
    const { tools, call, close } = await toolsOf({
      fetch: api.fetch,
      spec: {
        openapi: '3.0.3',
        info: { title: 'cyclic', version: '1' },
        paths: {
          '/trees': {
            post: {
              operationId: 'plant',
              requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/Tree' } } } },
              responses: { 200: { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Tree' } } } } },
            },
          },
          '/lists': post({ $ref: '#/components/schemas/Node' }),
        },
        components: {
          schemas: {
            Tree: tree,
            // A cycle through two schemas: Node -> Link -> Node.
            Node: { type: 'object', properties: { label: { type: 'string' }, next: { $ref: '#/components/schemas/Link' } } },
            Link: { type: 'object', nullable: true, properties: { node: { $ref: '#/components/schemas/Node' } } },
          },
        },
      },
    });
    const plant = tools.find((t) => t.name === 'plant')!;
    const treeDef = { type: 'object', required: ['value'], properties: { value: { type: 'integer' }, children: { type: 'array', items: { $ref: '#/$defs/Tree' } } } };
    expect(plant.inputSchema).toEqual({ type: 'object', properties: { body: { $ref: '#/$defs/Tree' } }, required: ['body'], additionalProperties: false, $defs: { Tree: treeDef } });
    expect(plant.outputSchema).toEqual({ ...treeDef, $defs: { Tree: treeDef } });
    for (const tool of tools) compiles(tool.inputSchema as Record<string, unknown>);
    const bad = await call('plant', { body: { value: 1, children: [{ value: 'two' }] } });
    expect(bad).toMatchObject({ isError: true, content: [{ text: 'Invalid arguments for tool "plant":\n- "body.children[0].value": must be integer' }] });
    const good = await call('plant', { body: { value: 1, children: [{ value: 2, children: [] }] } });
    expect(good.structuredContent).toEqual({ value: 1, children: [{ value: 2, children: [] }] });
    const save = tools.find((t) => t.name === 'save')!;
    expect(save.inputSchema.$defs).toEqual({
      Node: { type: 'object', properties: { label: { type: 'string' }, next: { type: ['object', 'null'], properties: { node: { $ref: '#/$defs/Node' } } } } },
    });
    expect((await call('save', { body: { label: 'a', next: { node: { label: 'b', next: null } } } })).isError).toBeUndefined();
    await close();
  });

  it('names the ref that leads nowhere, and leaves its operation out', async () => {
    const warnings: string[] = [];
    const { tools, close } = await toolsOf({
      onWarning: (w) => warnings.push(`${w.code}: ${w.message}`),
      spec: { openapi: '3.0.3', info: { title: 't', version: '1' }, paths: { '/a': post({ $ref: '#/components/schemas/Missing' }), '/b': { get: { responses: {} } } } },
    });
    expect(tools.map((t) => t.name)).toEqual(['get_b']);
    expect(warnings).toEqual([`OPERATION_LEFT_OUT: POST /a is left out: $ref "#/components/schemas/Missing" (in ${pathToFileURL(process.cwd()).href}/) points at nothing`]);
    await close();
  });
});
