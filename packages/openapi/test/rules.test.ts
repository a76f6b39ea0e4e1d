import 'reflect-metadata';
import { DefinitionError } from '@typemcp/core';
import type { Principal } from '@typemcp/core';
import { fromOpenApi } from '@typemcp/openapi';
import type { OpenApiOptions } from '@typemcp/openapi';
import { createTestClient } from '@typemcp/testing';

const ok = { 200: { description: 'ok', content: { 'application/json': { schema: { type: 'object' } } } } };
const id = [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }];

const spec = {
  openapi: '3.0.3',
  info: { title: 'Rules', version: '2.0.0' },
  servers: [{ url: 'https://api.example.com' }],
  components: {
    securitySchemes: {
      oauth: { type: 'oauth2', flows: { implicit: { authorizationUrl: 'https://auth.example.com', scopes: { read: '', write: '', admin: '' } } } },
      oidc: { type: 'openIdConnect', openIdConnectUrl: 'https://auth.example.com/.well-known/openid-configuration' },
      key: { type: 'apiKey', in: 'header', name: 'x-key' },
    },
  },
  security: [{ oauth: ['read'] }],
  paths: {
    '/users': { get: { operationId: 'listUsers', tags: ['users'], responses: ok }, post: { operationId: 'createUser', tags: ['users'], security: [{ oauth: ['write'], oidc: ['profile'] }, { key: [] }], responses: ok } },
    '/users/{id}': { parameters: id, get: { operationId: 'getUser', tags: ['users'], responses: ok }, delete: { operationId: 'deleteUser', tags: ['admin'], responses: ok } },
    '/users/{id}/avatar': { parameters: id, get: { operationId: 'avatar', parameters: [{ name: 'size', in: 'query', schema: { type: 'integer' } }], responses: ok } },
    '/status': { get: { operationId: 'status', security: [], responses: ok } },
    '/open': { get: { operationId: 'open', security: [{}, { oauth: ['admin'] }], responses: ok } },
    '/keyed': { get: { operationId: 'keyed', security: [{ key: [] }], responses: ok } },
  },
};

async function serve(options: Partial<OpenApiOptions>) {
  const server = await fromOpenApi({ spec, ...options });
  return server;
}

describe('rules', () => {
  it('lets the first matching rule decide: by method, path glob, tags, operationId string or RegExp', async () => {
    const server = await serve({
      rules: [
        { tags: ['admin'], as: 'exclude' },
        { path: '/users/*/avatar', as: 'template', name: 'avatar image' },
        { methods: ['get'], path: '/status', as: 'resource' },
        { operationId: /^get/, as: 'template' },
        { operationId: 'createUser', as: 'tool', name: 'add user' },
        { path: '/**', methods: ['GET'], operationId: /^(open|keyed)$/, as: 'exclude' },
      ],
    });
    const client = await createTestClient(server, { principal: { subject: 'root', scopes: ['read', 'write', 'profile', 'admin'], claims: {} } });
    expect((await client.listTools()).map((t) => t.name)).toEqual(['listUsers', 'add_user']);
    expect((await client.listResources()).map((r) => [r.uri, r.name])).toEqual([['openapi://status', 'status']]);
    expect((await client.listResourceTemplates()).map((t) => [t.uriTemplate, t.name])).toEqual([
      ['openapi://users/{id}', 'getUser'],
      ['openapi://users/{id}/avatar{?size}', 'avatar image'],
    ]);
    await client.close();
    await server.close();
  });

  it('takes the URI scheme of resources and templates from uriScheme', async () => {
    const server = await serve({ uriScheme: 'users', rules: [{ operationId: 'getUser', as: 'template' }, { as: 'exclude' }] });
    const client = await createTestClient(server, { principal: { subject: 'r', scopes: ['read'], claims: {} } });
    expect((await client.listResourceTemplates()).map((t) => t.uriTemplate)).toEqual(['users://users/{id}']);
    await client.close();
    await server.close();
  });

  it('refuses a rule that makes an operation what it cannot be, naming the rule, the operation and the fix', async () => {
    await expect(serve({ rules: [{ operationId: 'createUser', as: 'resource' }] })).rejects.toThrow(
      "@typemcp/openapi: rules[0] makes POST /users a resource, but it is a POST, and only a GET can be a resource: make it a 'tool', or narrow the rule",
    );
    await expect(serve({ rules: [{ path: '/users/{id}', methods: ['GET'], as: 'resource' }] })).rejects.toThrow(
      `rules[0] makes GET /users/{id} a resource, but it has the required path parameter "id": make it a 'template' or a 'tool', or narrow the rule`,
    );
    await expect(serve({ rules: [{ path: '/status', as: 'template' }] })).rejects.toThrow("it has no path or query parameter: make it a 'resource'");
    await expect(serve({ rules: [{ as: 'everything' as 'tool' }] })).rejects.toThrow("rules[0].as must be one of 'tool', 'resource', 'template', 'exclude', not \"everything\"");
  });
});

describe('security', () => {
  it('requires the OAuth and OpenID Connect scopes of the first alternative; security: [] or an empty alternative is public', async () => {
    const server = await serve({});
    const visible = async (principal?: Principal) => {
      const client = await createTestClient(server, principal ? { principal } : {});
      const names = (await client.listTools()).map((t) => t.name);
      await client.close();
      return names;
    };
    expect(await visible({ subject: 'a', scopes: ['read'], claims: {} })).toEqual(['listUsers', 'getUser', 'deleteUser', 'avatar', 'status', 'open', 'keyed']);
    expect(await visible({ subject: 'b', scopes: ['write', 'profile'], claims: {} })).toEqual(['createUser', 'status', 'open', 'keyed']);
    expect(await visible({ subject: 'c', scopes: [], claims: {} })).toEqual(['status', 'open', 'keyed']);
    await server.close();
  });
});

describe('the document and the options', () => {
  it('fails with a DefinitionError naming what to fix', async () => {
    const fails = (options: OpenApiOptions, message: string) => expect(fromOpenApi(options)).rejects.toThrow(new DefinitionError('INVALID_OPTION', message));
    await fails({ spec: { swagger: '2.0', paths: {} } }, '@typemcp/openapi: ' + `${'file://' + process.cwd()}/ is Swagger 2.0: convert it to OpenAPI 3 first (e.g. with swagger2openapi)`);
    await fails({ spec: { ...spec, servers: undefined } as never }, '@typemcp/openapi: the document names no servers: give the baseUrl option (e.g. "https://api.example.com/v1")');
    await fails({ spec, maxTools: 0 }, '@typemcp/openapi: maxTools must be a positive integer, not 0');
    await fails({ spec: 'does-not-exist.json' }, `@typemcp/openapi: cannot read file://${process.cwd()}/does-not-exist.json: ENOENT: no such file or directory, open '${process.cwd()}/does-not-exist.json'`);
    await fails({ spec: 42 as never }, '@typemcp/openapi: spec must be the parsed document (an object), or the path or URL of a JSON or YAML file');
    await expect(fromOpenApi({ spec, timeoutMs: -1 })).rejects.toMatchObject({ name: 'DefinitionError', code: 'INVALID_OPTION' });
  });

  it('reads a YAML document', async () => {
    const yaml = ['openapi: 3.1.0', 'info: { title: Yaml, version: "1" }', 'paths:', '  /ping:', '    get:', '      operationId: ping', '      responses: { "200": { description: ok } }'].join('\n');
    const server = await fromOpenApi({ spec: 'https://example.com/api.yaml', loadRef: () => yaml });
    const client = await createTestClient(server);
    expect((await client.listTools()).map((t) => t.name)).toEqual(['ping']);
    await client.close();
    await server.close();
  });
});

test('a path parameter is percent-encoded, and "." or ".." (a step out of the path) is refused without calling the API', async () => {
  const urls: string[] = [];
  const fetch: typeof globalThis.fetch = async (input) => {
    urls.push(String(input));
    return new Response('{}', { status: 200, headers: { 'content-type': 'application/json' } });
  };
  const server = await fromOpenApi({ spec, fetch });
  const client = await createTestClient(server, { principal: { subject: 'ada', scopes: ['read'], claims: {} } });
  expect((await client.callTool('getUser', { id: 'a b/c' })).isError).toBeUndefined();
  expect(urls).toEqual(['https://api.example.com/users/a%20b%2Fc']);
  for (const step of ['..', '.']) {
    const refused = await client.callTool('getUser', { id: step });
    expect(refused).toMatchObject({ isError: true, content: [{ type: 'text', text: expect.stringContaining(`the path parameter "id" may not be "." or ".."`) }] });
  }
  expect(urls).toHaveLength(1);
  await client.close();
  await server.close();
});
