import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { TestIssuer } from '@typemcp/auth/testing';
import type { McpServer } from '@typemcp/core';
import { RecordingTransport } from '../../../test-support/recordingTransport';
import { expectValidServerMessages } from '../../../test-support/specSchema';
import { createNotesServer, SCOPES } from '../src/server';

let issuer: TestIssuer;
let http: Server;
let server: McpServer;
let url: string;
/** Paths the notes server was asked for, in order. */
const served: string[] = [];

const CLIENTS = {
  reader: { clientId: 'reader', clientSecret: 'reader-secret', scopes: ['notes:read'] },
  writer: { clientId: 'writer', clientSecret: 'writer-secret', scopes: SCOPES },
  admin: { clientId: 'admin', clientSecret: 'admin-secret', scopes: SCOPES, claims: { roles: ['admin'] } },
};

beforeEach(async () => {
  issuer = await TestIssuer.start({ clients: Object.values(CLIENTS) });
  // The port comes first: the resource URL (the audience of tokens) names it.
  http = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  server = createNotesServer({ resource: url, issuer: issuer.url });
  const handler = server.httpHandler();
  http.on('request', (req, res) => {
    served.push(`${req.method} ${req.url}`);
    void handler(req, res);
  });
});

afterEach(async () => {
  served.length = 0;
  await server.close();
  http.closeAllConnections();
  await new Promise((resolve) => http.close(resolve));
  await issuer.close();
});

/** The official SDK client with the machine-to-machine (client credentials) flow. */
async function connect(client: { clientId: string; clientSecret: string }) {
  const authProvider = new ClientCredentialsProvider({ ...client, expectedIssuer: issuer.url });
  const recorder = new RecordingTransport(new StreamableHTTPClientTransport(new URL(url), { authProvider }));
  const sdk = new Client({ name: 'notes-client', version: '1.0.0' });
  await sdk.connect(recorder);
  return { sdk, recorder };
}

const textOf = (result: unknown) => (result as { content: Array<{ text: string }> }).content[0].text;

describe('the secured notes server', () => {
  it('refuses a client without a token with 401 and the address of its metadata', async () => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }),
    });
    expect(response.status).toBe(401);
    const metadataUrl = new URL('/.well-known/oauth-protected-resource/mcp', url).href;
    expect(response.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${metadataUrl}", scope="notes:read notes:write"`);
    expect(await (await fetch(metadataUrl)).json()).toEqual({
      resource: url,
      authorization_servers: [issuer.url],
      bearer_methods_supported: ['header'],
      scopes_supported: SCOPES,
      resource_name: 'Secured notes',
    });
  });

  it('lets the official SDK client find the authorization server through the metadata, get a token and call tools', async () => {
    const { sdk, recorder } = await connect(CLIENTS.writer);
    expect(textOf(await sdk.callTool({ name: 'whoami' }))).toBe('writer (scopes: notes:read notes:write)');
    expect(textOf(await sdk.callTool({ name: 'add_note', arguments: { text: 'buy milk' } }))).toBe('Saved note #1');
    expect(textOf(await sdk.callTool({ name: 'list_notes' }))).toBe('#1 (writer): buy milk');
    // The flow: a 401, the protected resource metadata, the issuer's metadata, a token, the retry.
    expect(served.slice(0, 3)).toEqual(['POST /mcp', 'GET /.well-known/oauth-protected-resource/mcp', 'POST /mcp']);
    expect(issuer.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /.well-known/oauth-authorization-server', // the client, from authorization_servers
      'POST /token', // client credentials, with the resource as audience
      'GET /.well-known/oauth-authorization-server', // the server, to find the issuer's keys
      'GET /.well-known/jwks.json',
    ]);
    await sdk.close();
    expectValidServerMessages('2025-11-25', recorder.received);
  });

  it('shows each client only the tools its token allows', async () => {
    const listFor = async (client: { clientId: string; clientSecret: string }) => {
      const { sdk } = await connect(client);
      const names = (await sdk.listTools()).tools.map((t) => t.name);
      await sdk.close();
      return names;
    };
    expect(await listFor(CLIENTS.reader)).toEqual(['list_notes', 'whoami']);
    expect(await listFor(CLIENTS.writer)).toEqual(['list_notes', 'add_note', 'whoami']);
    expect(await listFor(CLIENTS.admin)).toEqual(['list_notes', 'add_note', 'delete_note', 'whoami']);
  });

  it('answers a missing scope with 403 insufficient_scope, which the SDK client takes as a step-up', async () => {
    const { sdk } = await connect(CLIENTS.reader);
    const tokenRequests = () => issuer.requests.filter((r) => r.path === '/token').length;
    expect(tokenRequests()).toBe(1);
    const failure = await sdk.callTool({ name: 'add_note', arguments: { text: 'x' } }).catch((error: unknown) => error);
    // The SDK asked for a new token with the scopes of the challenge; the reader client may not
    // have notes:write, so the second answer is a 403 again and the client gives up.
    expect(failure).toBeInstanceOf(StreamableHTTPError);
    expect((failure as StreamableHTTPError).code).toBe(403);
    expect(tokenRequests()).toBe(2);
    await sdk.close();
  });

  it('keeps admin tools to the admin role, and each note to its owner', async () => {
    const { sdk: writer } = await connect(CLIENTS.writer);
    await writer.callTool({ name: 'add_note', arguments: { text: 'private' } });
    expect((await writer.readResource({ uri: 'notes://1' })).contents[0]).toMatchObject({ text: 'private' });
    const { sdk: admin } = await connect(CLIENTS.admin);
    await expect(admin.readResource({ uri: 'notes://1' })).rejects.toThrow(/-32003|refused by the guard/);
    expect(textOf(await admin.callTool({ name: 'delete_note', arguments: { id: 1 } }))).toBe('Deleted note #1');
    await Promise.all([writer.close(), admin.close()]);
  });

  it('checks tokens from the issuer for expiry, audience and signature', async () => {
    const post = (token: string) =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }),
      });
    expect((await post(await issuer.token({ audience: url, scopes: ['notes:read'] }))).status).toBe(200);
    for (const bad of [
      await issuer.token({ audience: url, expiresIn: '-1m' }),
      await issuer.token({ audience: 'http://127.0.0.1:1/mcp' }),
      await issuer.token({ audience: url, key: 'wrong' }),
    ]) {
      const response = await post(bad);
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toContain('error="invalid_token"');
    }
  });
});
