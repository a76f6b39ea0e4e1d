import { createRemoteJWKSet, jwtVerify } from 'jose';
import { TestIssuer } from '../../src/testing';

const RESOURCE = 'http://127.0.0.1:9/mcp';

describe('TestIssuer token endpoint (client_credentials)', () => {
  let issuer: TestIssuer;

  beforeEach(async () => {
    issuer = await TestIssuer.start({
      clients: [
        { clientId: 'robot', clientSecret: 'secret', scopes: ['notes:read', 'notes:write'], claims: { roles: ['ops'] } },
        { clientId: 'odd id', clientSecret: 'p@ss:w+rd', scopes: [] },
      ],
    });
  });
  afterEach(() => issuer.close());

  const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

  function post(form: Record<string, string | string[]>, headers: Record<string, string> = {}): Promise<Response> {
    const body = new URLSearchParams();
    for (const [name, value] of Object.entries(form)) for (const one of [value].flat()) body.append(name, one);
    return fetch(issuer.tokenEndpoint, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body });
  }

  async function claimsOf(response: Response) {
    const body = (await response.json()) as { access_token: string; scope: string };
    const { payload } = await jwtVerify(body.access_token, createRemoteJWKSet(new URL(issuer.jwksUri)), { issuer: issuer.url });
    return { body, payload };
  }

  it('issues a token to a client authenticated with client_secret_basic', async () => {
    const response = await post({ grant_type: 'client_credentials', scope: 'notes:read', resource: RESOURCE }, { authorization: basic('robot', 'secret') });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const { body, payload } = await claimsOf(response);
    expect(body).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 3600, scope: 'notes:read' });
    expect(payload).toMatchObject({ iss: issuer.url, sub: 'robot', client_id: 'robot', aud: RESOURCE, scope: 'notes:read', roles: ['ops'] });
    expect(payload.exp! - payload.iat!).toBe(3600);
  });

  it('issues a token to a client authenticated with client_secret_post', async () => {
    const response = await post({ grant_type: 'client_credentials', client_id: 'robot', client_secret: 'secret', resource: RESOURCE });
    expect(response.status).toBe(200);
    const { body, payload } = await claimsOf(response);
    // No scope asked: all of the client's scopes (RFC 6749 §3.3 default).
    expect(body.scope).toBe('notes:read notes:write');
    expect(payload).toMatchObject({ sub: 'robot', scope: 'notes:read notes:write' });
  });

  it('accepts Basic credentials raw or form-encoded (RFC 6749 §2.3.1)', async () => {
    const form = { grant_type: 'client_credentials', resource: RESOURCE };
    const raw = await post(form, { authorization: basic('odd id', 'p@ss:w+rd') });
    const encoded = await post(form, { authorization: basic('odd+id', 'p%40ss%3Aw%2Brd') });
    expect([raw.status, encoded.status]).toEqual([200, 200]);
    const { body, payload } = await claimsOf(encoded);
    expect(body.scope).toBe('');
    expect(payload.sub).toBe('odd id');
    expect(payload).not.toHaveProperty('scope');
  });

  it('turns each resource indicator into aud (RFC 8707)', async () => {
    const one = await claimsOf(await post({ grant_type: 'client_credentials', resource: 'https://mcp.example.com', client_id: 'robot', client_secret: 'secret' }));
    expect(one.payload.aud).toBe('https://mcp.example.com');
    const two = await claimsOf(await post({ grant_type: 'client_credentials', resource: [RESOURCE, 'https://b.example/mcp'], client_id: 'robot', client_secret: 'secret' }));
    expect(two.payload.aud).toEqual([RESOURCE, 'https://b.example/mcp']);
  });

  it.each([
    ['a scope outside the client\'s', 'notes:read admin', 'may not have admin (its scopes: notes:read notes:write)'],
    ['an unknown scope alone', 'admin', 'may not have admin'],
  ])('refuses %s with invalid_scope', async (_, scope, description) => {
    const response = await post({ grant_type: 'client_credentials', scope, resource: RESOURCE }, { authorization: basic('robot', 'secret') });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: string; error_description: string };
    expect(body.error).toBe('invalid_scope');
    expect(body.error_description).toContain(description);
  });

  it('refuses a missing or malformed resource with invalid_target', async () => {
    const auth = { authorization: basic('robot', 'secret') };
    const missing = await post({ grant_type: 'client_credentials' }, auth);
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ error: 'invalid_target', error_description: expect.stringContaining('resource is missing') });
    const fragment = await post({ grant_type: 'client_credentials', resource: 'https://mcp.example.com/#x' }, auth);
    expect(await fragment.json()).toMatchObject({ error: 'invalid_target' });
    const relative = await post({ grant_type: 'client_credentials', resource: '/mcp' }, auth);
    expect(await relative.json()).toMatchObject({ error: 'invalid_target' });
  });

  it('refuses a bad client with 401 invalid_client', async () => {
    const form = { grant_type: 'client_credentials', resource: RESOURCE };
    const wrongSecret = await post(form, { authorization: basic('robot', 'nope') });
    expect(wrongSecret.status).toBe(401);
    expect(wrongSecret.headers.get('www-authenticate')).toMatch(/^Basic realm="TestIssuer"/);
    expect(await wrongSecret.json()).toEqual({ error: 'invalid_client', error_description: 'wrong client_secret for the client "robot"' });

    const unknown = await post({ ...form, client_id: 'ghost', client_secret: 'secret' });
    expect(unknown.status).toBe(401);
    expect(await unknown.json()).toEqual({ error: 'invalid_client', error_description: 'the client "ghost" is not registered with this issuer' });

    const anonymous = await post(form);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ error: 'invalid_client', error_description: expect.stringContaining('client authentication is required') });

    const bearer = await post(form, { authorization: 'Bearer abc' });
    expect(bearer.status).toBe(401);
    expect(await bearer.json()).toMatchObject({ error: 'invalid_client' });
  });

  it('refuses a grant type other than client_credentials with unsupported_grant_type', async () => {
    const response = await post({ grant_type: 'password', username: 'u', password: 'p', resource: RESOURCE }, { authorization: basic('robot', 'secret') });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: 'unsupported_grant_type',
      error_description: 'the grant type "password" is not supported; this issuer supports client_credentials',
    });
  });

  it('refuses malformed requests with invalid_request', async () => {
    const auth = { authorization: basic('robot', 'secret') };
    const noGrant = await post({ resource: RESOURCE }, auth);
    expect(await noGrant.json()).toEqual({ error: 'invalid_request', error_description: 'grant_type is missing' });

    const twice = await post({ grant_type: 'client_credentials', scope: ['notes:read', 'notes:write'], resource: RESOURCE }, auth);
    expect(await twice.json()).toEqual({ error: 'invalid_request', error_description: 'the parameter scope is repeated' });

    const bothMethods = await post({ grant_type: 'client_credentials', client_id: 'robot', client_secret: 'secret', resource: RESOURCE }, auth);
    expect(bothMethods.status).toBe(400);
    expect(await bothMethods.json()).toMatchObject({ error: 'invalid_request', error_description: expect.stringContaining('authenticated twice') });

    const json = await fetch(issuer.tokenEndpoint, { method: 'POST', headers: { 'content-type': 'application/json', ...auth }, body: '{}' });
    expect(json.status).toBe(400);
    expect(await json.json()).toMatchObject({ error: 'invalid_request', error_description: expect.stringContaining('application/x-www-form-urlencoded') });

    const get = await fetch(issuer.tokenEndpoint);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');

    const huge = await post({ grant_type: 'client_credentials', resource: RESOURCE, filler: 'x'.repeat(70_000) }, auth);
    expect(huge.status).toBe(413);
    expect(await huge.json()).toMatchObject({ error: 'invalid_request' });
  });

  it('keeps serving after failures', async () => {
    await post({ grant_type: 'nope' });
    const response = await post({ grant_type: 'client_credentials', resource: RESOURCE }, { authorization: basic('robot', 'secret') });
    expect(response.status).toBe(200);
    expect(issuer.requests.filter((request) => request.path === '/token')).toHaveLength(2);
  });
});
