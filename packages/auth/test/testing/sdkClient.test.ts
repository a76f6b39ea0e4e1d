/**
 * The official SDK client (1.32.2) runs its own machine-to-machine flow against TestIssuer:
 * 401 → protected resource metadata → RFC 8414 metadata → token endpoint → retry with the token.
 * The resource server here is a stand-in written for the test (not @typemcp/auth).
 */
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { auth, extractWWWAuthenticateParams } from '@modelcontextprotocol/sdk/client/auth.js';
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InvalidClientError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { TestIssuer } from '../../src/testing';

interface ResourceServer {
  mcpUrl: string;
  metadataUrl: string;
  close(): Promise<void>;
}

/**
 * A minimal protected MCP endpoint: RFC 9728 metadata naming the issuer, 401 with
 * `resource_metadata` without a valid token, 403 insufficient_scope without `requiredScope`,
 * and just enough JSON-RPC to finish an initialize handshake.
 */
async function startResourceServer(issuer: TestIssuer, requiredScope: string): Promise<ResourceServer> {
  const keys = createRemoteJWKSet(new URL(issuer.jwksUri));
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const mcpUrl = `${origin}/mcp`;
  const metadataUrl = `${origin}/.well-known/oauth-protected-resource/mcp`;
  const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));

  server.on('request', async (req: IncomingMessage, res: ServerResponse) => {
    if (req.url === '/.well-known/oauth-protected-resource/mcp') {
      return json(res, 200, { resource: mcpUrl, authorization_servers: [issuer.url], scopes_supported: ['notes:read'], bearer_methods_supported: ['header'] });
    }
    if (req.url !== '/mcp') return json(res, 404, {});
    let scopes: string[];
    try {
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
      const { payload } = await jwtVerify(token, keys, { issuer: issuer.url, audience: mcpUrl });
      scopes = String(payload.scope ?? '').split(' ');
    } catch {
      return json(res, 401, {}, { 'www-authenticate': `Bearer resource_metadata="${metadataUrl}", scope="notes:read"` });
    }
    if (!scopes.includes(requiredScope)) {
      return json(res, 403, {}, { 'www-authenticate': `Bearer error="insufficient_scope", scope="${requiredScope}", resource_metadata="${metadataUrl}"` });
    }
    if (req.method !== 'POST') return json(res, 405, {}, { allow: 'POST' });
    let text = '';
    for await (const chunk of req) text += chunk;
    const message = JSON.parse(text) as { id?: number; method: string; params?: { protocolVersion?: string } };
    if (message.id === undefined) return res.writeHead(202).end();
    json(res, 200, {
      jsonrpc: '2.0',
      id: message.id,
      result: { protocolVersion: message.params?.protocolVersion, capabilities: {}, serverInfo: { name: 'stand-in', version: '1.0.0' } },
    });
  });
  return {
    mcpUrl,
    metadataUrl,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

describe('the MCP SDK client against TestIssuer', () => {
  let issuer: TestIssuer;
  let resourceServer: ResourceServer | undefined;
  let client: Client | undefined;
  /** `METHOD url` of every request the SDK made, in order. */
  let fetched: string[];
  const recordingFetch = (url: string | URL, init?: RequestInit) => {
    fetched.push(`${init?.method ?? 'GET'} ${String(url)}`);
    return fetch(url, init);
  };

  beforeEach(async () => {
    fetched = [];
    issuer = await TestIssuer.start({ clients: [{ clientId: 'robot', clientSecret: 'secret', scopes: ['notes:read', 'notes:write'] }] });
  });
  afterEach(async () => {
    await client?.close();
    await resourceServer?.close();
    await issuer.close();
    client = resourceServer = undefined;
  });

  it('connects after getting a token with client_credentials, discovering the issuer from the 401', async () => {
    resourceServer = await startResourceServer(issuer, 'notes:read');
    const provider = new ClientCredentialsProvider({ clientId: 'robot', clientSecret: 'secret', scope: 'notes:read', expectedIssuer: issuer.url });
    client = new Client({ name: 'm2m', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(resourceServer.mcpUrl), { authProvider: provider, fetch: recordingFetch }));

    expect(client.getServerVersion()).toEqual({ name: 'stand-in', version: '1.0.0' });
    expect(fetched.slice(0, 5)).toEqual([
      `POST ${resourceServer.mcpUrl}`,
      `GET ${resourceServer.metadataUrl}`,
      `GET ${issuer.url}/.well-known/oauth-authorization-server`,
      `POST ${issuer.url}/token`,
      `POST ${resourceServer.mcpUrl}`,
    ]);
    // RFC 8414 metadata was found first, so the OpenID path was never probed; the JWKS was
    // fetched by the resource server, checking the token.
    expect(fetched.some((line) => line.includes('openid-configuration'))).toBe(false);
    expect(issuer.requests).toEqual([
      { method: 'GET', path: '/.well-known/oauth-authorization-server' },
      { method: 'POST', path: '/token' },
      { method: 'GET', path: '/.well-known/jwks.json' },
    ]);
    const { payload } = await jwtVerify(provider.tokens()!.access_token, createRemoteJWKSet(new URL(issuer.jwksUri)), {
      issuer: issuer.url,
      audience: resourceServer.mcpUrl,
    });
    expect(payload).toMatchObject({ sub: 'robot', client_id: 'robot', scope: 'notes:read', aud: resourceServer.mcpUrl });
  });

  it("gets a token through the SDK's auth() with the resource from the metadata, and client_secret_basic", async () => {
    resourceServer = await startResourceServer(issuer, 'notes:read');
    const refusal = await fetch(resourceServer.mcpUrl, { method: 'POST' });
    expect(refusal.status).toBe(401);
    const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(refusal);
    expect(String(resourceMetadataUrl)).toBe(resourceServer.metadataUrl);

    const provider = new ClientCredentialsProvider({ clientId: 'robot', clientSecret: 'secret', expectedIssuer: issuer.url });
    const bodies: string[] = [];
    const fetchFn = (url: string | URL, init?: RequestInit) => {
      if (init?.method === 'POST') bodies.push(`${new Headers(init.headers).get('authorization')?.split(' ')[0]} ${String(init.body)}`);
      return recordingFetch(url, init);
    };
    expect(await auth(provider, { serverUrl: resourceServer.mcpUrl, resourceMetadataUrl, scope, fetchFn })).toBe('AUTHORIZED');

    // 1.32.2 asks for the provider's own `scope` only (none here), not the challenge's: the issuer grants the client's default.
    expect(bodies).toEqual([`Basic grant_type=client_credentials&resource=${encodeURIComponent(resourceServer.mcpUrl)}`]);
    expect(provider.tokens()).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'notes:read notes:write' });
    const retried = await fetch(resourceServer.mcpUrl, {
      method: 'POST',
      headers: { authorization: `Bearer ${provider.tokens()!.access_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
    expect(retried.status).toBe(202);
  });

  it('surfaces invalid_client from the token endpoint as the SDK InvalidClientError', async () => {
    resourceServer = await startResourceServer(issuer, 'notes:read');
    const provider = new ClientCredentialsProvider({ clientId: 'robot', clientSecret: 'wrong', expectedIssuer: issuer.url });
    const attempt = auth(provider, { serverUrl: resourceServer.mcpUrl, resourceMetadataUrl: new URL(resourceServer.metadataUrl), fetchFn: recordingFetch });
    await expect(attempt).rejects.toBeInstanceOf(InvalidClientError);
    await expect(attempt).rejects.toThrow('wrong client_secret for the client "robot"');
    // auth() retries once after invalid_client.
    expect(issuer.requests.filter((request) => request.path === '/token')).toHaveLength(2);
    expect(provider.tokens()).toBeUndefined();
  });

  it('does not widen a client_credentials token on 403 insufficient_scope (SDK 1.32.2 re-asks for its configured scope)', async () => {
    resourceServer = await startResourceServer(issuer, 'notes:write');
    const provider = new ClientCredentialsProvider({ clientId: 'robot', clientSecret: 'secret', scope: 'notes:read', expectedIssuer: issuer.url });
    client = new Client({ name: 'm2m', version: '1.0.0' });
    const connecting = client.connect(new StreamableHTTPClientTransport(new URL(resourceServer.mcpUrl), { authProvider: provider, fetch: recordingFetch }));
    await expect(connecting).rejects.toThrow('Server returned 403 after trying upscoping');
    // One token after the 401, one more after the 403: both with scope notes:read only.
    expect(issuer.requests.filter((request) => request.path === '/token')).toHaveLength(2);
    expect(provider.tokens()?.scope).toBe('notes:read');
  });
});
