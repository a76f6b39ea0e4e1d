import 'reflect-metadata';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { fromOpenApi } from '@typemcp/openapi';
import type { OpenApiOptions, OpenApiWarning } from '@typemcp/openapi';
import { createTestClient } from '@typemcp/testing';
import type { ListedTool } from '@typemcp/testing';

async function list(spec: Record<string, unknown>, options: Partial<OpenApiOptions> = {}): Promise<ListedTool[]> {
  const server = await fromOpenApi({ spec, baseUrl: 'https://api.example.com', ...options });
  const client = await createTestClient(server);
  try {
    return await client.listTools();
  } finally {
    await client.close();
    await server.close();
  }
}

const documentOf = (openapi: string, schema: unknown, response?: unknown) => ({
  openapi,
  info: { title: 'schemas', version: '1' },
  paths: {
    '/things': {
      post: {
        operationId: 'make',
        requestBody: { required: true, content: { 'application/json': { schema } } },
        responses: { 201: { description: 'made', content: { 'application/json': { schema: response ?? schema } } } },
      },
    },
  },
});

/** The 2020-12 meta-schema accepts it and ajv (strict about types and keywords off, as for any hand-written schema) compiles it. */
function expectValid2020(schema: unknown): void {
  const ajv = new Ajv2020({ strict: false });
  addFormats(ajv);
  expect(ajv.validateSchema(schema as object)).toBe(true);
  expect(() => ajv.compile(schema as object)).not.toThrow();
}

describe('schema dialects', () => {
  it('turns OpenAPI 3.0 schemas into JSON Schema 2020-12', async () => {
    const schema = {
      type: 'object',
      required: ['id', 'name'],
      discriminator: { propertyName: 'kind' },
      xml: { name: 'thing' },
      externalDocs: { url: 'https://example.com' },
      'x-internal': true,
      properties: {
        id: { type: 'integer', format: 'int64', readOnly: true },
        name: { type: 'string', nullable: true, example: 'Rex', format: 'repo.nwo' },
        size: { type: 'number', minimum: 0, exclusiveMinimum: true, maximum: 10, exclusiveMaximum: false },
        colour: { type: 'string', enum: ['red', 'blue'], nullable: true },
        owner: { allOf: [{ type: 'object', properties: { login: { type: 'string' } } }], nullable: true },
        code: { type: 'string', pattern: '^(?<!x)\\p{Lu}+$' },
        broken: { type: 'string', pattern: '[' },
        secret: { type: 'string', writeOnly: true },
        shape: { oneOf: [{ type: 'object', properties: { kind: { type: 'string' } } }, { type: 'object' }] },
        twin: { $ref: '#/components/schemas/Twin', nullable: true },
      },
    };
    const spec = { ...documentOf('3.0.3', schema), components: { schemas: { Twin: { type: 'object', properties: { name: { type: 'string' } } } } } };
    const [tool] = await list(spec);
    const body = (tool.inputSchema.properties as Record<string, unknown>).body;
    expect(body).toEqual({
      type: 'object',
      required: ['name'],
      properties: {
        name: { type: ['string', 'null'], examples: ['Rex'] },
        size: { type: 'number', exclusiveMinimum: 0, maximum: 10 },
        colour: { type: ['string', 'null'], enum: ['red', 'blue', null] },
        owner: { anyOf: [{ allOf: [{ type: 'object', properties: { login: { type: 'string' } } }] }, { type: 'null' }] },
        code: { type: 'string', pattern: '^(?<!x)\\p{Lu}+$' },
        broken: { type: 'string' },
        secret: { type: 'string', writeOnly: true },
        shape: { anyOf: [{ type: 'object', properties: { kind: { type: 'string' } } }, { type: 'object' }] },
        twin: { type: ['object', 'null'], properties: { name: { type: 'string' } } },
      },
    });
    // The answer: readOnly properties stay, writeOnly ones are no longer required, examples go.
    expect(tool.outputSchema).toMatchObject({ required: ['id', 'name'], properties: { id: { type: 'integer', format: 'int64', readOnly: true }, name: { type: ['string', 'null'] } } });
    expect((tool.outputSchema!.properties as Record<string, Record<string, unknown>>).name.examples).toBeUndefined();
    expectValid2020(tool.inputSchema);
    expectValid2020(tool.outputSchema);
  });

  it('keeps OpenAPI 3.1 schemas, which are 2020-12 already, and honours siblings of $ref', async () => {
    const spec = documentOf('3.1.0', {
      type: 'object',
      properties: {
        tags: { type: ['array', 'null'], items: { type: 'string' }, examples: [['a']] },
        pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }], items: false },
        kind: { const: 'thing' },
        parent: { $ref: '#/components/schemas/Id', description: 'The parent' },
        limited: { $ref: '#/components/schemas/Id', maxLength: 3 },
      },
    }) as Record<string, unknown>;
    spec.components = { schemas: { Id: { type: 'string', minLength: 1 } } };
    const [tool] = await list(spec);
    expect((tool.inputSchema.properties as Record<string, unknown>).body).toEqual({
      type: 'object',
      properties: {
        tags: { type: ['array', 'null'], items: { type: 'string' }, examples: [['a']] },
        pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }], items: { not: {} } },
        kind: { const: 'thing' },
        parent: { type: 'string', minLength: 1, description: 'The parent' },
        limited: { allOf: [{ type: 'string', minLength: 1 }], maxLength: 3 },
      },
    });
    expectValid2020(tool.inputSchema);
  });

  it('wraps answers that are not objects as { result }, in the output schema too', async () => {
    const [tool] = await list(documentOf('3.0.3', { type: 'object' }, { type: 'array', items: { type: 'string' } }));
    expect(tool.outputSchema).toEqual({ type: 'object', properties: { result: { type: 'array', items: { type: 'string' } } }, required: ['result'] });
    const none = await list(documentOf('3.0.3', { type: 'object' }), { outputSchemas: false });
    expect(none[0].outputSchema).toBeUndefined();
  });
});

describe('size caps', () => {
  const big = {
    type: 'object',
    properties: Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`field${i}`, { type: 'string', description: `The field number ${i} of many` }])),
  };

  it('loosens a request body whose schema is over maxSchemaBytes, and leaves such an output schema out, reporting both', async () => {
    const warnings: OpenApiWarning[] = [];
    const spec = documentOf('3.0.3', big);
    const path = (spec.paths['/things'].post as Record<string, unknown>);
    path.parameters = [{ name: 'dry', in: 'query', schema: { type: 'boolean' } }];
    path.externalDocs = { url: 'https://docs.example.com/things' };
    const [tool] = await list(spec, { maxSchemaBytes: 4096, onWarning: (w) => warnings.push(w) });
    expect(tool.inputSchema).toEqual({
      type: 'object',
      properties: {
        dry: { type: 'boolean' },
        body: { type: 'object', description: "Its full schema is too large to show here: see the API's documentation (https://docs.example.com/things)." },
      },
      required: ['body'],
      additionalProperties: false,
    });
    expect(tool.outputSchema).toBeUndefined();
    expect(warnings.map((w) => [w.code, w.operation])).toEqual([
      ['SCHEMA_TOO_LARGE', 'POST /things'],
      ['OUTPUT_SCHEMA_LEFT_OUT', 'POST /things'],
    ]);
    expect(warnings[0].message).toMatch(/^POST \/things: the input schema \(\d+ bytes of JSON\) is over maxSchemaBytes \(4096\); the request body's schema is loosened$/);
  });
});

describe('parameters', () => {
  it('renames a parameter whose name another location (or the body) has, and sends each where it belongs', async () => {
    const seen: Array<{ url: string; headers: Record<string, string>; body?: unknown }> = [];
    const fetch = (async (url: string, init: RequestInit) => {
      seen.push({ url, headers: init.headers as Record<string, string>, body: init.body });
      return new Response('done', { headers: { 'content-type': 'text/plain' } });
    }) as unknown as typeof globalThis.fetch;
    const server = await fromOpenApi({
      baseUrl: 'https://api.example.com/v1/',
      fetch,
      spec: {
        openapi: '3.0.3',
        info: { title: 'p', version: '1' },
        paths: {
          '/items/{id}': {
            post: {
              operationId: 'update',
              parameters: [
                { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
                { name: 'id', in: 'query', schema: { type: 'integer' }, description: 'A version' },
                { name: 'body', in: 'query', schema: { type: 'string' } },
                { name: 'filter', in: 'query', style: 'deepObject', schema: { type: 'object' } },
                { name: 'ids', in: 'query', explode: false, schema: { type: 'array', items: { type: 'integer' } } },
                { name: 'words', in: 'query', style: 'spaceDelimited', schema: { type: 'array', items: { type: 'string' } } },
                { name: 'X-Tags', in: 'header', schema: { type: 'array', items: { type: 'string' } } },
                { name: 'Accept', in: 'header', schema: { type: 'string' } },
                { name: 'session', in: 'cookie', schema: { type: 'string' } },
                { name: 'where', in: 'query', content: { 'application/json': { schema: { type: 'object' } } } },
              ],
              requestBody: { content: { 'application/x-www-form-urlencoded': { schema: { type: 'object', properties: { note: { type: 'string' } } } } } },
              responses: { 200: { description: 'ok', content: { 'text/plain': {} } } },
            },
          },
        },
      },
    });
    const client = await createTestClient(server);
    const [tool] = await client.listTools();
    expect(Object.keys(tool.inputSchema.properties as object)).toEqual(['id', 'query_id', 'query_body', 'filter', 'ids', 'words', 'where', 'X-Tags', 'session', 'body']);
    expect((tool.inputSchema.properties as Record<string, unknown>).query_id).toEqual({ type: 'integer', description: 'A version (The query parameter "id".)' });
    const result = await client.callTool('update', {
      id: 'a b/c',
      query_id: 3,
      query_body: 'q',
      filter: { state: 'open', n: 2 },
      ids: [1, 2],
      words: ['x', 'y'],
      'X-Tags': ['t1', 't2'],
      session: 's=1',
      where: { a: 1 },
      body: { note: 'hi' },
    });
    expect(result).toEqual({ content: [{ type: 'text', text: 'done' }] });
    const [call] = seen;
    const url = new URL(call.url);
    expect(url.origin + url.pathname).toBe('https://api.example.com/v1/items/a%20b%2Fc');
    expect([...url.searchParams]).toEqual([
      ['id', '3'],
      ['body', 'q'],
      ['filter[state]', 'open'],
      ['filter[n]', '2'],
      ['ids', '1,2'],
      ['words', 'x y'],
      ['where', '{"a":1}'],
    ]);
    expect(call.headers).toEqual({ accept: 'text/plain', 'X-Tags': 't1,t2', cookie: 'session=s%3D1', 'content-type': 'application/x-www-form-urlencoded' });
    expect(String(call.body)).toBe('note=hi');
    await client.close();
    await server.close();
  });
});

describe('names', () => {
  it('makes operationIds valid tool names, falls back to <method>_<path>, shortens long names with a hash and numbers collisions', async () => {
    const long = 'x'.repeat(140);
    const operation = (operationId?: string) => ({ ...(operationId ? { operationId } : {}), responses: { 200: { description: 'ok' } } });
    const user = [{ name: 'user', in: 'path', required: true, schema: { type: 'string' } }];
    const tools = await list({
      openapi: '3.0.3',
      info: { title: 'n', version: '1' },
      paths: {
        '/a': { get: operation('repos/get content'), post: operation('same') },
        '/b': { get: operation('same'), post: operation('same_2') },
        '/users/{user}/repos': { parameters: user, get: operation(), delete: operation(`${long}a`), put: operation(`${long}b`) },
        '/': { get: operation() },
      },
    });
    const names = tools.map((t) => t.name);
    expect(names.slice(0, 5)).toEqual(['repos_get_content', 'same', 'same_3', 'same_2', 'get_users_user_repos']);
    expect(names[5]).toMatch(/^x{119}_[0-9a-f]{8}$/);
    expect(names[6]).toMatch(/^x{119}_[0-9a-f]{8}$/);
    expect(names[5]).not.toBe(names[6]);
    expect(names[7]).toBe('get_root');
  });
});
