import 'reflect-metadata';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import type { CryptoKey, JWK } from 'jose';
import { Context, DefinitionError, McpServer, metadataStore, Public, Scopes, Tool } from '@typemcp/core';
import type { HttpRequestInfo, Principal } from '@typemcp/core';
import { auth } from '@typemcp/auth';
import type { AuthOptions } from '@typemcp/auth';

const ISSUER_PATH = '/tenant';

/** Signing keys and a small issuer that publishes its metadata and keys, counting requests. */
let signing: { privateKey: CryptoKey; jwk: JWK };
let stranger: CryptoKey;
let issuerServer: Server;
let issuer: string;
const issuerHits: string[] = [];
/** Keys the issuer publishes beside k1 (a rotation in progress). */
const addedKeys: JWK[] = [];

beforeAll(async () => {
  const pair = await generateKeyPair('ES256');
  signing = { privateKey: pair.privateKey, jwk: { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' } };
  stranger = (await generateKeyPair('ES256')).privateKey;
  issuerServer = createServer((req, res) => {
    issuerHits.push(req.url!);
    const send = (body: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (req.url === `/.well-known/oauth-authorization-server${ISSUER_PATH}`) return send({ issuer, jwks_uri: `${issuer}/jwks`, token_endpoint: `${issuer}/token` });
    if (req.url === `${ISSUER_PATH}/jwks`) return send({ keys: [signing.jwk, ...addedKeys] });
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => issuerServer.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(issuerServer.address() as AddressInfo).port}${ISSUER_PATH}`;
});

afterAll(async () => {
  issuerServer.closeAllConnections();
  await new Promise((resolve) => issuerServer.close(resolve));
});

async function token(claims: Record<string, unknown> = {}, options: { key?: CryptoKey; expiresIn?: string | number; audience?: string; issuer?: string } = {}): Promise<string> {
  return new SignJWT({ sub: 'ann', scope: 'notes:read', ...claims })
    .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
    .setIssuer(options.issuer ?? issuer)
    .setAudience(options.audience ?? resource)
    .setIssuedAt()
    .setExpirationTime(options.expiresIn ?? '5m')
    .sign(options.key ?? signing.privateKey);
}

function declareTools() {
  class Notes {
    @Tool({ description: 'Who' })
    @Scopes('notes:read')
    whoami(ctx: Context): string {
      const p = ctx.principal!;
      return `${p.subject} ${p.scopes.join(',')} ${(p.roles ?? []).join(',')} ${String(p.claims.tenant)}`;
    }

    @Tool({ description: 'Write' })
    @Scopes('notes:write')
    write(): string {
      return 'written';
    }

    @Tool({ description: 'Open' })
    @Public()
    health(): string {
      return 'ok';
    }
  }
  return Notes;
}

let server: McpServer;
let url: string;
let resource: string;
const reported: string[] = [];
/** What the server reported, with the error's message. */
const reportedErrors: string[] = [];

async function start(options: Partial<AuthOptions> = {}) {
  metadataStore.clear();
  server = new McpServer({ name: 'notes', version: '1.0.0', providers: [declareTools()], onError: (what, error) => {
      reported.push(what);
      reportedErrors.push(`${what}: ${(error as Error).message}`);
    },
  });
  // The resource names the endpoint's real URL: its port is known once it listens, so a first
  // server picks the port and the protected one takes it over.
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as AddressInfo).port;
  await new Promise((resolve) => probe.close(resolve));
  resource = `http://127.0.0.1:${port}/mcp`;
  server.plugin(auth, { resource, issuer, ...options });
  ({ url } = await server.listen({ transport: 'http', port, handleSignals: false }));
}

afterEach(async () => {
  reported.length = 0;
  reportedErrors.length = 0;
  issuerHits.length = 0;
  await server?.close();
});

const modern = (name: string) => ({
  body: JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } },
  }),
  headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': name },
});

async function callTool(name: string, bearer?: string) {
  const request = modern(name);
  const response = await fetch(url, { method: 'POST', body: request.body, headers: bearer === undefined ? request.headers : { ...request.headers, authorization: `Bearer ${bearer}` } });
  return { status: response.status, challenge: response.headers.get('www-authenticate'), retryAfter: response.headers.get('retry-after'), body: (await response.json()) as { result?: { content: Array<{ text: string }> }; error?: { code: number; message: string; data?: unknown } } };
}

describe('the auth plugin over HTTP', () => {
  it('answers a request without a token 401 naming the scopes to ask for: defaultScopes, else scopesSupported, else none', async () => {
    const metadataUrl = () => `${new URL(url).origin}/.well-known/oauth-protected-resource/mcp`;
    await start({ scopesSupported: ['notes:read', 'notes:write'], defaultScopes: ['notes:read'] });
    expect((await callTool('whoami')).challenge).toBe(`Bearer resource_metadata="${metadataUrl()}", scope="notes:read"`);
    await server.close();
    await start({});
    expect((await callTool('whoami')).challenge).toBe(`Bearer resource_metadata="${metadataUrl()}"`);
  });

  it('answers a request without a token 401, naming its metadata document, which it serves', async () => {
    await start({ scopesSupported: ['notes:read', 'notes:write'], resourceName: 'Notes' });
    const refused = await callTool('whoami');
    expect(refused.status).toBe(401);
    const metadataUrl = `${new URL(url).origin}/.well-known/oauth-protected-resource/mcp`;
    expect(refused.challenge).toBe(`Bearer resource_metadata="${metadataUrl}", scope="notes:read notes:write"`);
    const metadata = await fetch(metadataUrl);
    expect(metadata.status).toBe(200);
    expect(await metadata.json()).toEqual({
      resource,
      authorization_servers: [issuer],
      bearer_methods_supported: ['header'],
      scopes_supported: ['notes:read', 'notes:write'],
      resource_name: 'Notes',
    });
  });

  it('accepts a valid token, with its keys found through the issuer metadata (RFC 8414, path inserted)', async () => {
    await start({ rolesClaim: 'groups' });
    const accepted = await callTool('whoami', await token({ scope: 'notes:read extra', groups: ['ops'], tenant: 'acme' }));
    expect(accepted.status).toBe(200);
    expect(accepted.body.result!.content[0].text).toBe('ann notes:read,extra ops acme');
    expect(issuerHits).toEqual([`/.well-known/oauth-authorization-server${ISSUER_PATH}`, `${ISSUER_PATH}/jwks`]);
  });

  it.each([
    ['a signature by another key', () => token({}, { key: stranger }), 'Invalid token: its signature does not verify'],
    ['another audience', () => token({}, { audience: 'https://other.example/mcp' }), 'Invalid token: it is not meant for this resource (aud)'],
    ['another issuer', () => token({}, { issuer: 'https://evil.example' }), 'Invalid token: it was issued by another authorization server (iss)'],
    ['an expired token', () => token({}, { expiresIn: Math.floor(Date.now() / 1000) - 60 }), 'Invalid token: it has expired'],
    ['no subject', () => token({ sub: undefined }), 'Invalid token: it has no subject (sub)'],
    ['garbage', async () => 'not.a.jwt', 'Invalid token: it is not a well-formed signed JWT'],
  ])('answers %s 401 invalid_token, saying why', async (_label, make, message) => {
    await start();
    const refused = await callTool('whoami', await make());
    expect(refused.status).toBe(401);
    expect(refused.challenge).toContain(`error="invalid_token", error_description="${message}"`);
    expect(refused.body.error).toEqual({ code: -32003, message, data: { reason: 'invalid_token' } });
    expect(reported).toEqual([]);
  });

  it('answers a missing scope 403 with a step-up challenge', async () => {
    await start();
    const refused = await callTool('write', await token());
    expect(refused.status).toBe(403);
    expect(refused.challenge).toBe(
      `Bearer resource_metadata="${new URL(url).origin}/.well-known/oauth-protected-resource/mcp", scope="notes:read notes:write", error="insufficient_scope", ` +
        `error_description="Access denied: tool \\"write\\" needs the scope notes:write, which the caller's credentials do not grant"`,
    );
  });

  it('refuses a header of another scheme as an invalid token', async () => {
    await start();
    const request = modern('whoami');
    const response = await fetch(url, { method: 'POST', body: request.body, headers: { ...request.headers, authorization: 'Basic YTpi' } });
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: { message: string } }).error.message).toBe('Invalid token: the Authorization header must be "Bearer <token>"');
  });

  it('uses keys given directly, or a JWKS URI, without asking the issuer', async () => {
    await start({ jwks: { keys: [signing.jwk] } });
    expect((await callTool('whoami', await token())).status).toBe(200);
    await server.close();
    await start({ jwksUri: `${issuer}/jwks` });
    expect((await callTool('whoami', await token())).status).toBe(200);
    expect(issuerHits).toEqual([`${ISSUER_PATH}/jwks`]);
  });

  it('fetches the issuer keys once, not per request or per token', async () => {
    await start({ jwksUri: `${issuer}/jwks` });
    const bearer = await token();
    for (let i = 0; i < 3; i++) expect((await callTool('whoami', bearer)).status).toBe(200);
    expect((await callTool('whoami', await token({ sub: 'bob' }))).status).toBe(200);
    expect(issuerHits).toEqual([`${ISSUER_PATH}/jwks`]);
  });

  it('refuses a token whose signature is spelled non-canonically (the same bytes, other spare bits)', async () => {
    await start({ jwksUri: `${issuer}/jwks` });
    const valid = await token();
    expect((await callTool('whoami', valid)).status).toBe(200);
    const [header, payload, signature] = valid.split('.');
    // 64 signature bytes: 86 characters, the last carrying 2 bits and 4 spare ones.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet.indexOf(signature.at(-1)!);
    const respelled = [1, 2, 3, 15].map((spare) => `${header}.${payload}.${signature.slice(0, -1)}${alphabet[(last & ~0b1111) | spare]}`);
    for (const forged of respelled) {
      const refused = await callTool('whoami', forged);
      expect({ status: refused.status, message: refused.body.error?.message }).toEqual({ status: 401, message: 'Invalid token: it is not a well-formed signed JWT' });
    }
  });

  it('answers 503 with Retry-After and reports why when the issuer keys cannot be found, then tries again', async () => {
    await start({ issuer: `${new URL(issuer).origin}/nowhere` });
    const failed = await callTool('whoami', await token({}, { issuer: `${new URL(issuer).origin}/nowhere` }));
    expect({ status: failed.status, retryAfter: failed.retryAfter, error: failed.body.error }).toEqual({
      status: 503,
      retryAfter: '10',
      error: { code: -32000, message: 'Service Unavailable: the credentials cannot be checked now; try again later' },
    });
    expect(reportedErrors[0]).toMatch(/a token could not be checked: the keys of the issuer .*\/nowhere cannot be read: auth: the issuer .* publishes no metadata at/);
    await callTool('whoami', await token());
    expect(reportedErrors).toHaveLength(2);
  });

  it('answers 503 with Retry-After when the issuer cannot be reached at all', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const gone = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((resolve) => closed.close(resolve));
    await start({ jwksUri: `${gone}/jwks` });
    const failed = await callTool('whoami', await token());
    expect({ status: failed.status, retryAfter: failed.retryAfter }).toEqual({ status: 503, retryAfter: '10' });
    expect(reported).toEqual(['plugin "@typemcp/auth": a token could not be checked']);
  });

  it('accepts a token signed by a key the issuer has just added, at once', async () => {
    await start({ jwksUri: `${issuer}/jwks` });
    expect((await callTool('whoami', await token())).status).toBe(200);
    const fresh = await generateKeyPair('ES256');
    addedKeys.push({ ...(await exportJWK(fresh.publicKey)), kid: 'k2', alg: 'ES256', use: 'sig' });
    try {
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      const signedByNewKey = await new SignJWT({ sub: 'ann', scope: 'notes:read' })
        .setProtectedHeader({ alg: 'ES256', kid: 'k2' })
        .setIssuer(issuer)
        .setAudience(resource)
        .setExpirationTime('5m')
        .sign(fresh.privateKey);
      expect((await callTool('whoami', signedByNewKey)).status).toBe(200);
      expect(issuerHits).toEqual([`${ISSUER_PATH}/jwks`, `${ISSUER_PATH}/jwks`]);
    } finally {
      addedKeys.length = 0;
    }
  });

  it('takes a verify function instead of JWT checks', async () => {
    const seen: HttpRequestInfo[] = [];
    await start({
      verify: (presented, req) => {
        seen.push(req);
        return presented === 'opaque-1' ? ({ subject: 'svc', scopes: ['notes:read'], claims: { tenant: 'x' } } satisfies Principal) : undefined;
      },
    });
    expect((await callTool('whoami', 'opaque-1')).body.result!.content[0].text).toBe('svc notes:read  x');
    const refused = await callTool('whoami', 'opaque-2');
    expect(refused.status).toBe(401);
    expect(refused.body.error!.message).toBe('Invalid token: the server does not accept it');
    expect(seen[0].headers.get('authorization')).toBe('Bearer opaque-1');
    // RFC 6750's b64token grammar: a token with ":" never reaches verify.
    const malformed = await callTool('whoami', 'user:secret');
    expect({ status: malformed.status, message: malformed.body.error!.message }).toMatchObject({ status: 401, message: expect.stringMatching(/^Invalid token: /) });
    expect(seen).toHaveLength(2);
  });

  it('with anonymous callers allowed, serves @Public tools without a token', async () => {
    await start({ allowAnonymous: true });
    expect((await callTool('health')).body.result!.content[0].text).toBe('ok');
    expect((await callTool('whoami')).status).toBe(401);
  });
});

describe('the auth plugin options', () => {
  const add = (options: unknown) => () => new McpServer({ name: 'x', version: '1' }).plugin(auth, options as AuthOptions);

  it('refuses missing or malformed options with a DefinitionError naming the fix', () => {
    expect(add(undefined)).toThrow('@typemcp/auth: options are required: server.plugin(auth, { resource, issuer })');
    expect(add({ resource: 'mcp', issuer: 'https://a' })).toThrow('@typemcp/auth: resource must be an absolute URL, not "mcp"');
    expect(add({ resource: 'https://r/mcp', issuer: 'https://a', jwks: { keys: [] }, jwksUri: 'https://a/jwks' })).toThrow('give jwks or jwksUri, not both');
    expect(add({ resource: 'https://r/mcp', issuer: 'https://a', stdio: { subject: 'x' } })).toThrow('stdio must be a principal');
    expect(add({ resource: 1, issuer: 'https://a' })).toThrow(DefinitionError);
    expect(add({ resource: 'https://r/mcp', issuer: 'https://a' })).not.toThrow();
  });

  it('names the stdio caller', async () => {
    metadataStore.clear();
    const Notes = declareTools();
    const created = new McpServer({ name: 'local', version: '1.0.0', providers: [Notes] }).plugin(auth, {
      resource: 'https://r.example/mcp',
      issuer: 'https://a.example',
      stdio: { subject: 'local', scopes: ['notes:read'], claims: { tenant: 'home' } },
    });
    const { PassThrough } = await import('node:stream');
    const input = new PassThrough();
    const output = new PassThrough();
    const lines: string[] = [];
    output.on('data', (chunk: Buffer) => lines.push(...chunk.toString().split('\n').filter(Boolean)));
    await created.listen({ transport: 'stdio', input, output, handleSignals: false });
    input.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } } })}\n`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(JSON.parse(lines[0]).result.content[0].text).toBe('local notes:read  home');
    await created.close();
  });
});
