import 'reflect-metadata';
import { cleanUp, connect, document, get, json, startHttp, text } from './httpServer';

afterEach(cleanUp);

describe('path parameters', () => {
  it('refuses a value whose expansion is "." or ".." or empty, in every style, without calling the API', async () => {
    const api = await startHttp((request, response) => json(response, { url: request.url }));
    const param = (name: string, style: string, explode: boolean, schema: unknown) => [{ name, in: 'path', required: true, style, explode, schema }];
    const array = { type: 'array', items: { type: 'string' } };
    const client = await connect({
      spec: document({
        '/label/{fid}': get('label', param('fid', 'label', true, array)),
        '/labels/{fid}': get('labels', param('fid', 'label', false, { type: 'string' })),
        '/simple/{id}': get('simple', param('id', 'simple', false, array)),
        '/matrix/{m}': get('matrix', param('m', 'matrix', true, array)),
        '/object/{o}': get('object', param('o', 'simple', false, { type: 'object', additionalProperties: { type: 'string' } })),
      }),
      baseUrl: api.url,
    });
    const refused = async (tool: string, args: Record<string, unknown>, segment: string) => {
      const result = await client.callTool(tool, args);
      expect(result.isError).toBe(true);
      const name = Object.keys(args)[0];
      expect(text(result)).toBe(
        segment === ''
          ? `the path parameter "${name}" may not be empty: the request would go to another path`
          : `the path parameter "${name}" may not be "." or "..": as ${JSON.stringify(Object.values(args)[0])} it makes the path segment "${segment}", a step out of the path`,
      );
    };
    await refused('label', { fid: ['', ''] }, '..');
    await refused('label', { fid: [''] }, '.');
    await refused('labels', { fid: '' }, '.');
    await refused('labels', { fid: '.' }, '..');
    await refused('simple', { id: ['..'] }, '..');
    await refused('simple', { id: [] }, '');
    await refused('object', { o: {} }, '');
    expect(api.seen).toEqual([]);
    expect((await client.callTool('label', { fid: ['a', 'b'] })).structuredContent).toEqual({ url: '/label/.a.b' });
    expect((await client.callTool('simple', { id: ['..', 'x'] })).structuredContent).toEqual({ url: '/simple/..,x' });
    expect((await client.callTool('matrix', { m: ['', ''] })).structuredContent).toEqual({ url: '/matrix/;m=;m=' });
  });

  it('refuses it in a template read too, as invalid params', async () => {
    const api = await startHttp((request, response) => json(response, { url: request.url }));
    const client = await connect({
      spec: document({ '/items/{id}': get('item', [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }]) }),
      baseUrl: api.url,
      rules: [{ as: 'template' }],
    });
    for (const [uri, segment] of [['openapi://items/..', '..'], ['openapi://items/%2e%2E', '..'], ['openapi://items/.', '.']]) {
      await expect(client.readResource(uri)).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining(`the path parameter "id" may not be "." or "..": as "${segment}" it makes the path segment "${segment}"`),
      });
    }
    expect(api.seen).toEqual([]);
    expect(await client.readResource('openapi://items/a')).toMatchObject({ contents: [{ text: '{"url":"/items/a"}' }] });
  });
});
