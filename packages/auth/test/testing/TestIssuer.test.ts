import { DefinitionError } from '@typemcp/core';
import { createRemoteJWKSet, decodeProtectedHeader, errors, jwtVerify } from 'jose';
import { TestIssuer } from '../../src/testing';

const AUDIENCE = 'http://127.0.0.1:9/mcp';

describe('TestIssuer', () => {
  let issuer: TestIssuer;

  beforeEach(async () => {
    issuer = await TestIssuer.start({ clients: [{ clientId: 'robot', clientSecret: 'secret', scopes: ['notes:read', 'notes:write'] }] });
  });
  afterEach(() => issuer.close());

  it('listens on 127.0.0.1 and a free port, and names its endpoints from its url', () => {
    expect(issuer.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(issuer.url).not.toMatch(/:0$/);
    expect(issuer.jwksUri).toBe(`${issuer.url}/.well-known/jwks.json`);
    expect(issuer.metadataUrl).toBe(`${issuer.url}/.well-known/oauth-authorization-server`);
    expect(issuer.tokenEndpoint).toBe(`${issuer.url}/token`);
  });

  it('serves RFC 8414 metadata for the client_credentials grant', async () => {
    const response = await fetch(`${issuer.url}/.well-known/oauth-authorization-server`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toEqual({
      issuer: issuer.url,
      authorization_endpoint: `${issuer.url}/authorize`,
      token_endpoint: `${issuer.url}/token`,
      jwks_uri: issuer.jwksUri,
      response_types_supported: [],
      grant_types_supported: ['client_credentials'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      scopes_supported: ['notes:read', 'notes:write'],
    });
  });

  it('publishes one ES256 public key with a key id', async () => {
    const { keys } = (await (await fetch(issuer.jwksUri)).json()) as { keys: Record<string, unknown>[] };
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig', kid: expect.any(String) });
    expect(keys[0]).not.toHaveProperty('d');
  });

  it('mints tokens that verify against its JWKS, with the registered claims', async () => {
    const token = await issuer.token({ audience: AUDIENCE, subject: 'alice', scopes: ['notes:read', 'notes:write'], claims: { roles: ['admin'] } });
    const { payload, protectedHeader } = await jwtVerify(token, createRemoteJWKSet(new URL(issuer.jwksUri)), { issuer: issuer.url, audience: AUDIENCE });
    const { keys } = (await (await fetch(issuer.jwksUri)).json()) as { keys: { kid: string }[] };
    expect(protectedHeader).toEqual({ alg: 'ES256', kid: keys[0].kid, typ: 'at+jwt' });
    expect(payload).toEqual({
      iss: issuer.url,
      sub: 'alice',
      aud: AUDIENCE,
      iat: expect.any(Number),
      exp: payload.iat! + 300,
      jti: expect.any(String),
      client_id: 'test-client',
      scope: 'notes:read notes:write',
      roles: ['admin'],
    });
  });

  it('uses defaults for subject and client, and leaves scope out when there is none', async () => {
    const { payload } = await jwtVerify(await issuer.token({ audience: [AUDIENCE, 'urn:other'] }), createRemoteJWKSet(new URL(issuer.jwksUri)));
    expect(payload).toMatchObject({ sub: 'test-user', client_id: 'test-client', aud: [AUDIENCE, 'urn:other'] });
    expect(payload).not.toHaveProperty('scope');
  });

  it("signs with a key outside the JWKS for key: 'wrong', under the published key id", async () => {
    const good = await issuer.token({ audience: AUDIENCE });
    const bad = await issuer.token({ audience: AUDIENCE, key: 'wrong' });
    expect(decodeProtectedHeader(bad).kid).toBe(decodeProtectedHeader(good).kid);
    await expect(jwtVerify(bad, createRemoteJWKSet(new URL(issuer.jwksUri)))).rejects.toBeInstanceOf(errors.JWSSignatureVerificationFailed);
  });

  it('mints expired tokens, other issuers, and lets claims replace registered ones', async () => {
    const keys = createRemoteJWKSet(new URL(issuer.jwksUri));
    await expect(jwtVerify(await issuer.token({ audience: AUDIENCE, expiresIn: -60 }), keys)).rejects.toBeInstanceOf(errors.JWTExpired);
    await expect(jwtVerify(await issuer.token({ audience: AUDIENCE, expiresIn: '-1m' }), keys)).rejects.toBeInstanceOf(errors.JWTExpired);
    const { payload } = await jwtVerify(await issuer.token({ audience: AUDIENCE, expiresIn: '2h' }), keys);
    expect(payload.exp! - payload.iat!).toBe(7200);

    const foreign = await issuer.token({ audience: AUDIENCE, issuer: 'https://elsewhere.example' });
    await expect(jwtVerify(foreign, keys, { issuer: issuer.url })).rejects.toMatchObject({ code: 'ERR_JWT_CLAIM_VALIDATION_FAILED', claim: 'iss' });

    const replaced = await jwtVerify(await issuer.token({ audience: AUDIENCE, claims: { aud: 'urn:x', exp: 4102444800, sub: 'bob' } }), keys);
    expect(replaced.payload).toMatchObject({ aud: 'urn:x', exp: 4102444800, sub: 'bob' });
  });

  it('logs the requests it answered', async () => {
    await fetch(`${issuer.url}/.well-known/oauth-authorization-server?x=1`);
    await fetch(issuer.jwksUri, { method: 'HEAD' });
    await fetch(`${issuer.url}/nowhere`);
    expect(issuer.requests).toEqual([
      { method: 'GET', path: '/.well-known/oauth-authorization-server' },
      { method: 'HEAD', path: '/.well-known/jwks.json' },
      { method: 'GET', path: '/nowhere' },
    ]);
  });

  it('answers unknown paths with 404, the authorization endpoint with unsupported_response_type, documents only to GET', async () => {
    const missing = await fetch(`${issuer.url}/.well-known/openid-configuration`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: 'not_found' });
    const authorize = await fetch(`${issuer.url}/authorize?response_type=code&client_id=robot`);
    expect(authorize.status).toBe(400);
    expect(await authorize.json()).toMatchObject({ error: 'unsupported_response_type' });
    const post = await fetch(issuer.jwksUri, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });

  it('refuses invalid options with the option to fix', async () => {
    await expect(issuer.token({} as never)).rejects.toThrow('audience must name the resource');
    await expect(issuer.token({ audience: AUDIENCE, expiresIn: 'soon' })).rejects.toThrow(/expiresIn "soon" is not a duration/);
    await expect(issuer.token({ audience: AUDIENCE, scopes: ['has space'] })).rejects.toBeInstanceOf(DefinitionError);
    await expect(TestIssuer.start({ port: 70000 })).rejects.toThrow('port must be an integer from 0 to 65535');
    const twice = [
      { clientId: 'a', clientSecret: 's', scopes: [] },
      { clientId: 'a', clientSecret: 't', scopes: [] },
    ];
    await expect(TestIssuer.start({ clients: twice })).rejects.toThrow('clients[1].clientId "a" is used by an earlier client');
    await expect(TestIssuer.start({ clients: [{ clientId: 'a', clientSecret: '', scopes: [] }] })).rejects.toMatchObject({ code: 'INVALID_OPTION' });
  });

  it('frees its port on close, and close can be called twice', async () => {
    const port = Number(new URL(issuer.url).port);
    await issuer.close();
    await issuer.close();
    await expect(fetch(issuer.jwksUri)).rejects.toThrow();
    const again = await TestIssuer.start({ port });
    expect(again.url).toBe(issuer.url);
    await again.close();
  });

  it('reports a port it cannot bind', async () => {
    const port = Number(new URL(issuer.url).port);
    await expect(TestIssuer.start({ port })).rejects.toThrow(`TestIssuer could not listen on 127.0.0.1:${port}`);
  });
});
