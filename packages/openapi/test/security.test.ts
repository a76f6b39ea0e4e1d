/** An operation's scopes stay required when its security scheme cannot be read: a broken document closes, never opens. */
import 'reflect-metadata';
import { fromOpenApi } from '@typemcp/openapi';
import { createTestClient } from '@typemcp/testing';

const ok = { 200: { description: 'ok', content: { 'application/json': { schema: { type: 'object' } } } } };

test('scopes named for a missing scheme, or one whose $ref points at nothing, are required', async () => {
  const spec = {
    openapi: '3.1.0',
    info: { title: 'Broken schemes', version: '1' },
    servers: [{ url: 'https://api.example.com' }],
    components: { securitySchemes: { dangling: { $ref: '#/components/nothing/here' }, key: { type: 'apiKey', in: 'header', name: 'x-key' } } },
    paths: {
      '/missing': { get: { operationId: 'missingScheme', security: [{ undefinedScheme: ['admin'] }], responses: ok } },
      '/dangling': { get: { operationId: 'danglingScheme', security: [{ dangling: ['admin'] }], responses: ok } },
      '/keyed': { get: { operationId: 'keyed', security: [{ key: [] }], responses: ok } },
    },
  };
  const server = await fromOpenApi({ spec });
  const stranger = await createTestClient(server, { principal: { subject: 's', scopes: [], claims: {} } });
  const admin = await createTestClient(server, { principal: { subject: 'a', scopes: ['admin'], claims: {} } });
  try {
    expect((await stranger.listTools()).map((tool) => tool.name)).toEqual(['keyed']);
    await expect(stranger.callTool('missingScheme', {})).rejects.toThrow(/admin/);
    await expect(stranger.callTool('danglingScheme', {})).rejects.toThrow(/admin/);
    expect((await admin.listTools()).map((tool) => tool.name).sort()).toEqual(['danglingScheme', 'keyed', 'missingScheme']);
  } finally {
    await stranger.close();
    await admin.close();
  }
});
