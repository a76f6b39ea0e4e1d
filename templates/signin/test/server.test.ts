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
  client = await createTestClient(createServer(), { principal: signedIn('notes:read', 'notes:write') });
});
afterEach(() => client.close());

function textOf(result: { content?: unknown }): string {
  return (result.content as Array<{ type: string; text?: string }>).map((block) => block.text ?? '').join('');
}

test('lists its tools with their input schemas', async () => {
  const tools = await client.listTools();
  expect(tools.map((t) => t.name)).toEqual(['add_note', 'read_note']);
  expect(tools[0].inputSchema).toMatchObject({ type: 'object', required: ['title', 'body'] });
});

test('adds a note and reads it back as a resource', async () => {
  const added = await client.callTool('add_note', { title: 'Groceries', body: 'Milk, eggs', tags: ['home'] });
  expect(added.isError).toBeFalsy();
  expect(textOf(added)).toBe('Saved note 2: Groceries');

  const read = await client.readResource('notes://notes/2');
  expect(read.contents[0]).toMatchObject({ uri: 'notes://notes/2', mimeType: 'text/markdown' });
  expect((read.contents[0] as { text: string }).text).toContain('Milk, eggs');
});

test('answers invalid arguments with an error the model can act on', async () => {
  const result = await client.callTool('add_note', { title: '' });
  expect(result.isError).toBe(true);
  expect(textOf(result)).toMatch(/title/);
  expect(textOf(result)).toMatch(/body/);
});

test('says which ids exist when a note is missing', async () => {
  const result = await client.callTool('read_note', { id: '42' });
  expect(result.isError).toBe(true);
  expect(textOf(result)).toContain('known ids: 1');
});

test('answers a missing note with an error that says which ids exist, in the resource and the prompt too', async () => {
  await expect(client.readResource('notes://notes/99')).rejects.toMatchObject({ code: -32002, message: expect.stringContaining('No note with id "99"; known ids: 1') });
  await expect(client.getPrompt('summarize', { id: '99' })).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('No note with id "99"; known ids: 1') });
});

test('fills in the summarize prompt and completes note ids', async () => {
  const prompt = await client.getPrompt('summarize', { id: '1' });
  expect((prompt.messages[0].content as { text: string }).text).toContain('# Welcome');

  const completion = await client.complete({ type: 'ref/prompt', name: 'summarize' }, { name: 'id', value: '' });
  expect(completion.completion.values).toEqual(['1']);
});

// The same server serves clients of the stateless 2026-07-28 revision, with no change to its code.
test.each(['2025-11-25', '2026-07-28'])('adds and reads a note at protocol %s', async (protocolVersion) => {
  const other = await createTestClient(createServer(), { protocolVersion, principal: signedIn('notes:read', 'notes:write') });
  try {
    const added = await other.callTool('add_note', { title: 'Era', body: 'Both work' });
    expect(textOf(added)).toMatch(/^Saved note \d+: Era$/);
    expect((await other.listTools()).map((t) => t.name)).toEqual(['add_note', 'read_note']);
  } finally {
    await other.close();
  }
});

test('needs notes:write to add a note, and shows a reader only what it may use', async () => {
  const reader = await createTestClient(createServer(), { principal: signedIn('notes:read') });
  try {
    expect((await reader.listTools()).map((t) => t.name)).toEqual(['read_note']);
    await expect(reader.callTool('add_note', { title: 'No', body: 'not allowed' })).rejects.toMatchObject({ code: -32003, data: { scopes: ['notes:read', 'notes:write'] } });
    expect(textOf(await reader.callTool('read_note', { id: '1' }))).toContain('# Welcome');
  } finally {
    await reader.close();
  }
});
