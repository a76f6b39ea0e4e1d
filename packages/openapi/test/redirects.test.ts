import 'reflect-metadata';
import { cleanUp, connect, document, get, json, post, redirect, startHttp, text } from './httpServer';
import type { Http } from './httpServer';

afterEach(cleanUp);

describe('redirects of downstream calls', () => {
  const KEY = { 'x-api-key': 'operator-secret' };

  /** An internal service the API may point at: answers its secret to whoever asks. */
  const startInternal = () => startHttp((_request, response) => json(response, { secret: 'internal data' }));

  it('refuses a redirect to another origin: nothing is sent there, and its body does not come back', async () => {
    const internal = await startInternal();
    const api = await startHttp((_request, response) => redirect(response, 302, `${internal.url}/admin`));
    const client = await connect({ spec: document({ '/go': get('go') }), baseUrl: api.url, headers: KEY });
    const result = await client.callTool('go', {});
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(`GET ${api.url}/go was redirected to ${internal.url}/admin, on another origin: refused (allowRedirect decides which other origins a call may follow)`);
    expect(internal.seen).toEqual([]);
  });

  it('refuses it for a resource read too: an MCP error, with nothing sent to the other origin', async () => {
    const internal = await startInternal();
    const api = await startHttp((_request, response) => redirect(response, 302, `${internal.url}/admin`));
    const client = await connect({ spec: document({ '/go': get('go') }), baseUrl: api.url, headers: KEY, rules: [{ operationId: 'go', as: 'resource' }] });
    await expect(client.readResource('openapi://go')).rejects.toThrow(`GET ${api.url}/go was redirected to ${internal.url}/admin, on another origin: refused`);
    expect(internal.seen).toEqual([]);
  });

  it('refuses a chain of redirects that leaves the origin on a later hop', async () => {
    const internal = await startInternal();
    const api = await startHttp((request, response) => {
      if (request.url === '/a') redirect(response, 301, '/b');
      else if (request.url === '/b') redirect(response, 307, `${internal.url}/admin`);
      else json(response, {}, 404);
    });
    const client = await connect({ spec: document({ '/a': get('a') }), baseUrl: api.url, headers: KEY });
    const result = await client.callTool('a', {});
    expect(result.isError).toBe(true);
    expect(text(result)).toContain(`was redirected to ${internal.url}/admin, on another origin: refused`);
    expect(api.seen.map((seen) => seen.url)).toEqual(['/a', '/b']);
    expect(internal.seen).toEqual([]);
  });

  it.each([
    ['a protocol-relative Location', (internal: Http) => `//127.0.0.1:${internal.port}/admin`, 'on another origin'],
    ['a Location with user and password', (_internal: Http, api: Http) => `http://user:pass@127.0.0.1:${api.port}/ok`, 'carries a user name or password'],
    ['a Location that is not http(s)', () => 'file:///etc/passwd', 'not http(s)'],
    ['localhost for 127.0.0.1', (_internal: Http, api: Http) => `http://localhost:${api.port}/ok`, 'on another origin'],
  ])('refuses %s', async (_what, location, why) => {
    const internal = await startInternal();
    const api = await startHttp((request, response) => (request.url === '/go' ? redirect(response, 302, location(internal, api)) : json(response, { reached: request.url })));
    const client = await connect({ spec: document({ '/go': get('go') }), baseUrl: api.url, headers: KEY });
    const result = await client.callTool('go', {});
    expect(result).toMatchObject({ isError: true });
    expect(text(result)).toContain(why);
    expect(text(result)).not.toContain('user:pass');
    expect(internal.seen).toEqual([]);
    expect(api.seen).toHaveLength(1);
  });

  it('follows redirects within the origin: 303 (and 302 after a POST) make a GET, 307 and 308 keep the method and body', async () => {
    const api = await startHttp((request, response, body) => {
      const to: Record<string, [number, string]> = { '/see-other': [303, '/landing'], '/found': [302, '/landing'], '/temporary': [307, '/echo'], '/permanent': [308, `${'http://127.0.0.1'}:${(request.socket.localPort ?? 0).toString()}/echo?x=1`] };
      const hop = to[request.url ?? ''];
      if (hop) return redirect(response, ...hop);
      json(response, { method: request.method, url: request.url, body, key: request.headers['x-api-key'] ?? null });
    });
    const client = await connect({
      spec: document({ '/see-other': post('seeOther'), '/found': post('found'), '/temporary': post('temporary'), '/permanent': post('permanent') }),
      baseUrl: api.url,
      headers: KEY,
    });
    expect((await client.callTool('seeOther', { body: { a: 1 } })).structuredContent).toEqual({ method: 'GET', url: '/landing', body: '', key: 'operator-secret' });
    expect((await client.callTool('found', { body: { a: 1 } })).structuredContent).toEqual({ method: 'GET', url: '/landing', body: '', key: 'operator-secret' });
    expect((await client.callTool('temporary', { body: { a: 2 } })).structuredContent).toEqual({ method: 'POST', url: '/echo', body: '{"a":2}', key: 'operator-secret' });
    expect((await client.callTool('permanent', { body: { a: 3 } })).structuredContent).toEqual({ method: 'POST', url: '/echo?x=1', body: '{"a":3}', key: 'operator-secret' });
    const landing = api.seen.filter((seen) => seen.url === '/landing');
    expect(landing.map((seen) => seen.headers['content-type'])).toEqual([undefined, undefined]);
  });

  it('gives up after 5 redirects', async () => {
    const api = await startHttp((request, response) => redirect(response, 302, `/loop/${Number(request.url!.split('/')[2] ?? 0) + 1}`));
    const client = await connect({ spec: document({ '/loop/0': get('loop') }), baseUrl: api.url });
    const result = await client.callTool('loop', {});
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(`GET ${api.url}/loop/0 was redirected more than 5 times`);
    expect(api.seen).toHaveLength(6);
  });

  it("follows a cross-origin redirect that allowRedirect allows, without the operator's headers, cookies or header parameters", async () => {
    const other = await startHttp((request, response) => json(response, { from: 'other', url: request.url }));
    const api = await startHttp((_request, response) => redirect(response, 307, `${other.url}/elsewhere`));
    const asked: Array<[string, string]> = [];
    const client = await connect({
      spec: document({
        '/go': get('go', [
          { name: 'x-trace', in: 'header', schema: { type: 'string' } },
          { name: 'session', in: 'cookie', schema: { type: 'string' } },
        ]),
      }),
      baseUrl: api.url,
      headers: { ...KEY, authorization: 'Bearer operator-token' },
      allowRedirect: (url, from) => {
        asked.push([url, from]);
        return url.startsWith(`${other.url}/`);
      },
    });
    const result = await client.callTool('go', { 'x-trace': 'caller-trace', session: 'caller-cookie' });
    expect(result.structuredContent).toEqual({ from: 'other', url: '/elsewhere' });
    expect(asked).toEqual([[`${other.url}/elsewhere`, `${api.url}/go`]]);
    const [sent] = other.seen;
    expect(sent.headers['x-api-key']).toBeUndefined();
    expect(sent.headers.authorization).toBeUndefined();
    expect(sent.headers['x-trace']).toBeUndefined();
    expect(sent.headers.cookie).toBeUndefined();
    expect(api.seen[0].headers['x-api-key']).toBe('operator-secret');
  });

  it('treats a step from https to http as another origin', async () => {
    const calls: string[] = [];
    const fetch = (async (url: string) => {
      calls.push(url);
      return url.startsWith('https:') ? new Response('', { status: 301, headers: { location: 'http://api.example.com/go' } }) : Response.json({ plain: true });
    }) as unknown as typeof globalThis.fetch;
    const client = await connect({ spec: document({ '/go': get('go') }), baseUrl: 'https://api.example.com', headers: KEY, fetch });
    const result = await client.callTool('go', {});
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('was redirected to http://api.example.com/go, on another origin: refused');
    expect(calls).toEqual(['https://api.example.com/go']);
  });
});

