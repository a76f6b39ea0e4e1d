import 'reflect-metadata';
import { AccessDeniedError, AuthenticationService, Context, McpServer, metadataStore, Public, Roles, Scopes, Tool } from '@typemcp/core';
import type { AuthChallenge, Plugin, Principal } from '@typemcp/core';

/** An authentication over a fixed table of tokens: what the HTTP handler does with one, without any JWT. */
const tokens: Record<string, Principal> = {
  'ann-read': { subject: 'ann', scopes: ['notes:read'], claims: {} },
  'ann-write': { subject: 'ann', scopes: ['notes:read', 'notes:write'], claims: {} },
  'bob-read': { subject: 'bob', scopes: ['notes:read'], claims: {} },
};
const challenges: AuthChallenge[] = [];
const tableAuth = (allowAnonymous = false): Plugin<void> => ({
  name: 'table-auth',
  register(host) {
    host.provide(AuthenticationService, {
      authenticate(req) {
        const header = req.headers.get('authorization');
        if (header === null) return undefined;
        const principal = tokens[header.replace(/^Bearer /, '')];
        if (!principal) throw new AccessDeniedError('invalid_token', 'Invalid token: unknown');
        return principal;
      },
      challenge(challenge) {
        challenges.push(challenge);
        return `Bearer resource_metadata="meta"${challenge.scopes ? `, scope="${challenge.scopes.join(' ')}"` : ''}${challenge.error ? `, error="${challenge.error}"` : ''}`;
      },
      allowAnonymous,
      documents: new Map([['/.well-known/oauth-protected-resource/mcp', { resource: 'http://127.0.0.1/mcp' }]]),
    });
  },
});

function declareNotes() {
  class Notes {
    @Tool({ description: 'Who am I' })
    @Scopes('notes:read')
    whoami(ctx: Context): string {
      return `${ctx.principal?.subject} with ${ctx.principal?.scopes.join(' ')}`;
    }

    @Tool({ description: 'Writes' })
    @Scopes('notes:write')
    write(): string {
      return 'written';
    }

    @Tool({ description: 'Admins' })
    @Roles('admin')
    purge(): string {
      return 'purged';
    }

    @Tool({ description: 'Open' })
    @Public()
    ping_me(): string {
      return 'pong';
    }
  }
  return Notes;
}

let server: McpServer;
let url: string;

async function start(options: { allowAnonymous?: boolean; plugin?: boolean; principal?: (req: import('node:http').IncomingMessage) => string | undefined } = {}) {
  metadataStore.clear();
  server = new McpServer({ name: 'secured', version: '1.0.0', providers: [declareNotes()] });
  if (options.plugin !== false) server.plugin(tableAuth(options.allowAnonymous));
  ({ url } = await server.listen({ transport: 'http', port: 0, handleSignals: false, principal: options.principal }));
}

afterEach(async () => {
  challenges.length = 0;
  await server.close();
});

const ACCEPT = 'application/json, text/event-stream';

async function post(body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: ACCEPT, ...headers }, body: JSON.stringify(body) });
  const text = await response.text();
  const event = text.split('\n').find((line) => line.startsWith('data: '));
  const json = text.startsWith('{') || text.startsWith('[') ? JSON.parse(text) : event === undefined ? undefined : JSON.parse(event.slice(6));
  return { status: response.status, challenge: response.headers.get('www-authenticate'), session: response.headers.get('mcp-session-id'), json };
}

const initialize = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
const call = (name: string, id = 1) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name } });
const modernCall = (name: string) => ({
  jsonrpc: '2.0',
  id: 9,
  method: 'tools/call',
  params: { name, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } },
});
const modernHeaders = (name: string, token: string) => ({ authorization: `Bearer ${token}`, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': name });

async function openSession(token: string): Promise<string> {
  const opened = await post(initialize, { authorization: `Bearer ${token}` });
  expect(opened.status).toBe(200);
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, { authorization: `Bearer ${token}`, 'mcp-session-id': opened.session!, 'mcp-protocol-version': '2025-11-25' });
  return opened.session!;
}

describe('an authenticated HTTP endpoint', () => {
  it('answers a request without credentials 401 with the challenge, before any session exists', async () => {
    await start();
    const refused = await post(initialize);
    expect(refused.status).toBe(401);
    expect(refused.challenge).toBe('Bearer resource_metadata="meta"');
    expect(refused.json).toEqual({ jsonrpc: '2.0', error: { code: -32003, message: 'Unauthorized: this server needs a bearer token', data: { reason: 'unauthenticated' } } });
    expect(server.sessions).toHaveLength(0);
  });

  it('answers rejected credentials 401 invalid_token', async () => {
    await start();
    const refused = await post(initialize, { authorization: 'Bearer forged' });
    expect(refused.status).toBe(401);
    expect(refused.challenge).toBe('Bearer resource_metadata="meta", error="invalid_token"');
    expect(refused.json.error).toEqual({ code: -32003, message: 'Invalid token: unknown', data: { reason: 'invalid_token' } });
  });

  it('serves its metadata documents to anyone, from any origin', async () => {
    await start();
    const response = await fetch(new URL('/.well-known/oauth-protected-resource/mcp', url), { headers: { origin: 'https://elsewhere.example' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(await response.json()).toEqual({ resource: 'http://127.0.0.1/mcp' });
  });

  it('answers a missing scope 403 with an insufficient_scope challenge naming the scopes to ask for', async () => {
    await start();
    const session = await openSession('ann-read');
    const headers = { authorization: 'Bearer ann-read', 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
    const allowed = await post(call('whoami'), headers);
    expect(allowed.status).toBe(200);
    expect(allowed.json.result.content[0].text).toBe('ann with notes:read');
    const refused = await post(call('write'), headers);
    expect(refused.status).toBe(403);
    expect(refused.challenge).toBe('Bearer resource_metadata="meta", scope="notes:read notes:write", error="insufficient_scope"');
    expect(refused.json.error.data).toEqual({ reason: 'insufficient_scope', scopes: ['notes:read', 'notes:write'] });
  });

  it('sees a refreshed token of the same subject on the next request of its session', async () => {
    await start();
    const session = await openSession('ann-read');
    const stepped = await post(call('write'), { authorization: 'Bearer ann-write', 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' });
    expect(stepped.status).toBe(200);
    expect(stepped.json.result.content[0].text).toBe('written');
  });

  it('keeps a session to the subject that opened it', async () => {
    await start();
    const session = await openSession('ann-read');
    for (const method of ['POST', 'GET', 'DELETE']) {
      const response = await fetch(url, {
        method,
        headers: { authorization: 'Bearer bob-read', 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25', accept: ACCEPT, 'content-type': 'application/json' },
        body: method === 'POST' ? JSON.stringify(call('whoami')) : undefined,
      });
      expect(response.status).toBe(403);
      expect(await response.json()).toMatchObject({ error: { message: 'Forbidden: this session belongs to another principal' } });
    }
    expect(server.sessions).toHaveLength(1);
  });

  it('refuses a role 403 without a challenge: a new token would not help', async () => {
    await start();
    const session = await openSession('ann-write');
    const refused = await post(call('purge'), { authorization: 'Bearer ann-write', 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' });
    expect(refused.status).toBe(403);
    expect(refused.challenge).toBeNull();
    expect(refused.json.error.data).toEqual({ reason: 'forbidden' });
  });

  it('answers a refused request inside a batch with its error, the batch 200', async () => {
    await start();
    const opened = await post({ ...initialize, params: { ...initialize.params, protocolVersion: '2025-03-26' } }, { authorization: 'Bearer ann-read' });
    const headers = { authorization: 'Bearer ann-read', 'mcp-session-id': opened.session!, 'mcp-protocol-version': '2025-03-26' };
    await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
    const batch = await post([call('whoami', 1), call('write', 2)], headers);
    expect(batch.status).toBe(200);
    expect(batch.json.map((m: { id: number; error?: { code: number } }) => [m.id, m.error?.code])).toEqual([
      [1, undefined],
      [2, -32003],
    ]);
  });

  it('does the same for 2026-07-28 requests, each on its own', async () => {
    await start();
    const allowed = await post(modernCall('whoami'), modernHeaders('whoami', 'bob-read'));
    expect(allowed.status).toBe(200);
    expect(allowed.json.result.content[0].text).toBe('bob with notes:read');
    const refused = await post(modernCall('write'), modernHeaders('write', 'bob-read'));
    expect(refused.status).toBe(403);
    expect(refused.challenge).toBe('Bearer resource_metadata="meta", scope="notes:read notes:write", error="insufficient_scope"');
    expect(refused.json).toMatchObject({ id: 9, error: { code: -32003, data: { reason: 'insufficient_scope' } } });
    const anonymous = await post(modernCall('whoami'), { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'whoami' });
    expect(anonymous.status).toBe(401);
  });

  it('with anonymous callers allowed, serves @Public targets and challenges the rest with 401', async () => {
    await start({ allowAnonymous: true });
    const opened = await post(initialize);
    expect(opened.status).toBe(200);
    const headers = { 'mcp-session-id': opened.session!, 'mcp-protocol-version': '2025-11-25' };
    await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
    expect((await post(call('ping_me'), headers)).json.result.content[0].text).toBe('pong');
    const listed = await post({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: {} }, headers);
    expect(listed.json.result.tools.map((t: { name: string }) => t.name)).toEqual(['ping_me']);
    const refused = await post(call('whoami'), headers);
    expect(refused.status).toBe(401);
    expect(refused.challenge).toBe('Bearer resource_metadata="meta", scope="notes:read"');
  });

  it('lets a client that opened its session anonymously keep it once it steps up, and only that client', async () => {
    await start({ allowAnonymous: true });
    const opened = await post(initialize);
    const headers = { 'mcp-session-id': opened.session!, 'mcp-protocol-version': '2025-11-25' };
    await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
    expect((await post(call('whoami'), headers)).status).toBe(401);
    const stepped = await post(call('whoami'), { ...headers, authorization: 'Bearer ann-read' });
    expect(stepped.status).toBe(200);
    expect(stepped.json.result.content[0].text).toBe('ann with notes:read');
    expect((await post(call('ping_me'), { ...headers, authorization: 'Bearer bob-read' })).status).toBe(403);
    expect((await post(call('ping_me'), headers)).status).toBe(403);
  });

  it('still answers a refusal when the challenge cannot be made', async () => {
    metadataStore.clear();
    server = new McpServer({ name: 'broken', version: '1.0.0', providers: [declareNotes()] });
    server.plugin({
      name: 'broken-auth',
      register(host) {
        host.provide(AuthenticationService, {
          authenticate: (req) => (req.headers.get('authorization') ? tokens['ann-read'] : undefined),
          challenge: (challenge) => {
            if (challenge.error === 'insufficient_scope') throw new Error('no challenge today');
            return 'Bearer realm="\u0000"'; // a control character: not a valid header value
          },
        });
      },
    });
    ({ url } = await server.listen({ transport: 'http', port: 0, handleSignals: false }));
    const refused = await post(initialize);
    expect(refused.status).toBe(401);
    expect(refused.challenge).toBeNull();
    const opened = await post(initialize, { authorization: 'Bearer x' });
    const headers = { authorization: 'Bearer x', 'mcp-session-id': opened.session!, 'mcp-protocol-version': '2025-11-25' };
    await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
    const stepUp = await post(call('write'), headers);
    expect(stepUp.status).toBe(403);
    expect(stepUp.challenge).toBeNull();
    expect(stepUp.json.error.data.reason).toBe('insufficient_scope');
  });

  it('without an authentication plugin, binds sessions to the subject the application names, and refuses with 403', async () => {
    await start({ plugin: false, principal: (req) => req.headers['x-user'] as string | undefined });
    const opened = await post(initialize, { 'x-user': 'ann' });
    const headers = { 'mcp-session-id': opened.session!, 'mcp-protocol-version': '2025-11-25' };
    await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, { ...headers, 'x-user': 'ann' });
    const refused = await post(call('whoami'), { ...headers, 'x-user': 'ann' });
    expect(refused.status).toBe(403);
    expect(refused.challenge).toBeNull();
    expect(refused.json.error.data).toEqual({ reason: 'insufficient_scope', scopes: ['notes:read'] });
    expect((await post(call('ping_me'), { ...headers, 'x-user': 'mallory' })).status).toBe(403);
  });
});
