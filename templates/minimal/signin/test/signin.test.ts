import { createHash, randomBytes } from 'node:crypto';
import { createServer as createHttpServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { developmentLogin } from '@typemcp/auth';
import type { McpServer } from '@typemcp/core';
import { DEVELOPMENT_SECRET, signInSecret } from '../src/auth.js';
import { createServer } from '../src/server.js';

// A sign-in as an MCP client and a browser do it, over HTTP on 127.0.0.1 with fetch: the
// client registers (DCR), sends the user to the authorization endpoint with PKCE, the user
// logs in and approves, the client exchanges the code for a token and calls a tool with it.

const PROTOCOL = '2025-11-25';
// The client's loopback redirect: the test reads the redirect instead of following it.
const REDIRECT_URI = 'http://127.0.0.1:8765/callback';

let http: Server;
let server: McpServer;
let origin: string;
let resource: string;

beforeAll(async () => {
  // Listening first: the resource URL, which the tokens are issued for, names the port.
  http = createHttpServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  resource = `${origin}/mcp`;
  server = createServer({ resource, authenticate: developmentLogin({ users: { tester: { password: 'test password' } } }), secret: 'a test secret of at least thirty-two characters' });
  const handler = server.httpHandler({ path: '/mcp' });
  http.on('request', (req, res) => void handler(req, res));
});

afterAll(async () => {
  http.closeAllConnections();
  await new Promise((resolve) => http.close(resolve));
  await server.close();
});

/** A browser without a window: it keeps the login cookie, leaves redirects to the test and posts forms. */
class Browser {
  private cookie = '';

  async get(url: string) {
    return this.read(await fetch(url, { headers: { cookie: this.cookie }, redirect: 'manual' }));
  }

  async post(url: string, form: Record<string, string>) {
    const headers = { cookie: this.cookie, 'content-type': 'application/x-www-form-urlencoded', origin: new URL(url).origin };
    return this.read(await fetch(url, { method: 'POST', headers, body: new URLSearchParams(form), redirect: 'manual' }));
  }

  private async read(response: Response) {
    const setCookie = response.headers.get('set-cookie');
    if (setCookie) this.cookie = setCookie.split(';')[0];
    return { status: response.status, location: response.headers.get('location'), html: await response.text() };
  }
}

/** A hidden field or the action of the page's form, with the page's HTML escapes undone. */
function formField(html: string, pattern: RegExp): string {
  const value = pattern.exec(html)?.[1];
  if (value === undefined) throw new Error(`no ${pattern} in the page:\n${html}`);
  return value.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));
}

/** Registers a client, signs the test user in and approves `scope`; the token response. */
async function signIn(scope: string, browser = new Browser()): Promise<{ access_token: string; scope: string; refresh_token?: string }> {
  // Discovery, as a client does it after a 401: the resource's metadata names its authorization server.
  const protectedResource = await (await fetch(`${origin}/.well-known/oauth-protected-resource/mcp`)).json();
  expect(protectedResource).toMatchObject({ resource, authorization_servers: [origin], scopes_supported: expect.arrayContaining(['hello']) });
  const metadata = (await (await fetch(`${origin}/.well-known/oauth-authorization-server`)).json()) as Record<string, string>;

  const registration = await fetch(metadata.registration_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Test client', redirect_uris: [REDIRECT_URI], grant_types: ['authorization_code', 'refresh_token'], token_endpoint_auth_method: 'none' }),
  });
  expect(registration.status).toBe(201);
  const { client_id } = (await registration.json()) as { client_id: string };

  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const authorize = `${metadata.authorization_endpoint}?${new URLSearchParams({ response_type: 'code', client_id, redirect_uri: REDIRECT_URI, code_challenge: challenge, code_challenge_method: 'S256', scope, state: 'state-1', resource })}`;

  // The development login's form, then the authorization request again, now signed in: the consent page.
  const login = await browser.get(authorize);
  if (login.html.includes('name="password"')) {
    const loggedIn = await browser.post(authorize, { username: 'tester', password: 'test password' });
    expect(loggedIn).toMatchObject({ status: 303, location: authorize });
  }
  const consent = await browser.get(authorize);
  expect(consent.status).toBe(200);
  for (const asked of scope.split(' ')) expect(consent.html).toContain(asked);
  const approved = await browser.post(formField(consent.html, /<form method="post" action="([^"]*)"/), {
    request: formField(consent.html, /name="request" value="([^"]*)"/),
    csrf: formField(consent.html, /name="csrf" value="([^"]*)"/),
    decision: 'approve',
  });
  expect(approved.status).toBe(303);
  const back = new URL(approved.location!);
  expect(`${back.origin}${back.pathname}`).toBe(REDIRECT_URI);
  expect(Object.fromEntries(back.searchParams)).toMatchObject({ state: 'state-1', iss: origin, code: expect.any(String) });

  const token = await fetch(metadata.token_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code: back.searchParams.get('code')!, redirect_uri: REDIRECT_URI, code_verifier: verifier, client_id, resource }),
  });
  expect(token.status).toBe(200);
  return (await token.json()) as { access_token: string; scope: string; refresh_token?: string };
}

/** One JSON-RPC message to the MCP endpoint; the answer, as JSON or the response in an event stream (after any notifications). */
async function post(body: object, token: string | undefined, session?: string) {
  const response = await fetch(resource, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': PROTOCOL,
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      ...(session === undefined ? {} : { 'mcp-session-id': session }),
    },
    body: JSON.stringify({ jsonrpc: '2.0', ...body }),
  });
  const text = await response.text();
  const messages = response.headers.get('content-type')?.startsWith('text/event-stream')
    ? [...text.matchAll(/^data: (.*)$/gm)].map((line) => JSON.parse(line[1]))
    : text ? [JSON.parse(text)] : [];
  const message = messages.find((each) => 'id' in each && ('result' in each || 'error' in each));
  return { status: response.status, challenge: response.headers.get('www-authenticate'), session: response.headers.get('mcp-session-id') ?? session, message };
}

/** Opens a session with `token` and calls `tool`: the HTTP status, the challenge, the result. */
async function callTool(token: string, tool: string, args: object) {
  const init = await post({ id: 1, method: 'initialize', params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'test', version: '1.0.0' } } }, token);
  expect(init.status).toBe(200);
  await post({ method: 'notifications/initialized' }, token, init.session);
  return post({ id: 2, method: 'tools/call', params: { name: tool, arguments: args } }, token, init.session);
}

test('without a token the endpoint answers 401, naming where to sign in and the scope to ask for', async () => {
  const answer = await post({ id: 1, method: 'initialize', params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'test', version: '1.0.0' } } }, undefined);
  expect(answer.status).toBe(401);
  expect(answer.challenge).toBe(`Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp", scope="hello"`);
});

test('a client registers, the user signs in and approves, and the token calls the tool', async () => {
  const tokens = await signIn('hello');
  expect(tokens.scope).toBe('hello');
  expect(tokens.refresh_token).toEqual(expect.any(String));

  const hello = await callTool(tokens.access_token, 'hello', { name: 'Signed in' });
  expect(hello.status).toBe(200);
  expect(hello.message.result).toMatchObject({ content: [{ type: 'text', text: 'Hello, Signed in!' }] });
  expect(hello.message.result.isError).toBeFalsy();
});

test('a token that is not one of its own is refused', async () => {
  const direct = await post({ id: 1, method: 'initialize', params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'test', version: '1.0.0' } } }, 'not-a-token');
  expect(direct.status).toBe(401);
  expect(direct.challenge).toContain('error="invalid_token"');
});

test('the secret comes from SIGNIN_SECRET; without it, a development secret and a warning', () => {
  const warnings: string[] = [];
  expect(signInSecret({ SIGNIN_SECRET: 'a production secret of 32 characters or more' }, (line) => warnings.push(line))).toBe('a production secret of 32 characters or more');
  expect(warnings).toEqual([]);
  expect(signInSecret({}, (line) => warnings.push(line))).toBe(DEVELOPMENT_SECRET);
  expect(warnings).toEqual([expect.stringContaining('SIGNIN_SECRET is not set')]);
  expect(() => signInSecret({ SIGNIN_SECRET: 'short' })).toThrow('SIGNIN_SECRET must be 32 characters or more');
});
