import { developmentLogin } from '@typemcp/auth';
import type { Principal } from '@typemcp/core';
import { createTestClient } from '@typemcp/testing';
import type { TestClient } from '@typemcp/testing';
import { createServer as createSignInServer } from '../src/server.js';

// The server as main.ts makes it; in memory nobody signs in: the tests say who calls (the
// principal), test/signin.test.ts signs in over HTTP.
const createServer = () =>
  createSignInServer({ resource: 'http://127.0.0.1:3000/mcp', authenticate: developmentLogin({ users: { tester: { password: 'tester' } } }), secret: 'a test secret of at least thirty-two characters' });
const signedIn = (...scopes: string[]): Principal => ({ subject: 'tester', scopes, claims: {} });

// Each test talks to a fresh server in memory; every message it sends is checked against the
// official MCP schema of the negotiated protocol version.
let client: TestClient;
beforeEach(async () => {
  client = await createTestClient(createServer(), { principal: signedIn('hello') });
});
afterEach(() => client.close());

function textOf(result: { content?: unknown }): string {
  return (result.content as Array<{ type: string; text?: string }>).map((block) => block.text ?? '').join('');
}

test('lists its tool with its input schema', async () => {
  const tools = await client.listTools();
  expect(tools.map((t) => t.name)).toEqual(['hello']);
  expect(tools[0].inputSchema).toMatchObject({ type: 'object', required: ['name'] });
});

test('says hello', async () => {
  const result = await client.callTool('hello', { name: 'Ada' });
  expect(result.isError).toBeFalsy();
  expect(textOf(result)).toBe('Hello, Ada!');
});

test('answers invalid arguments with an error the model can act on', async () => {
  const result = await client.callTool('hello', { name: '' });
  expect(result.isError).toBe(true);
  expect(textOf(result)).toMatch(/name/);
});

// The same server serves clients of the stateless 2026-07-28 revision, with no change to its code.
test.each(['2025-11-25', '2026-07-28'])('says hello at protocol %s', async (protocolVersion) => {
  const other = await createTestClient(createServer(), { protocolVersion, principal: signedIn('hello') });
  try {
    expect(textOf(await other.callTool('hello', { name: 'Era' }))).toBe('Hello, Era!');
  } finally {
    await other.close();
  }
});

test('needs the scope hello: a caller without it sees no tool and is refused, naming the scope to ask for', async () => {
  const stranger = await createTestClient(createServer(), { principal: signedIn() });
  try {
    expect(await stranger.listTools()).toEqual([]);
    await expect(stranger.callTool('hello', { name: 'Ada' })).rejects.toMatchObject({ code: -32003, data: { scopes: ['hello'] } });
  } finally {
    await stranger.close();
  }
});
