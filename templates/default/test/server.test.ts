import { createTestClient } from '@typemcp/testing';
import type { TestClient } from '@typemcp/testing';
import { createServer } from '../src/server.js';

// Each test talks to a fresh server in memory; every message it sends is checked against the
// official MCP schema of the negotiated protocol version.
let client: TestClient;
beforeEach(async () => {
  client = await createTestClient(createServer());
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
  const other = await createTestClient(createServer(), { protocolVersion });
  try {
    const added = await other.callTool('add_note', { title: 'Era', body: 'Both work' });
    expect(textOf(added)).toMatch(/^Saved note \d+: Era$/);
    expect((await other.listTools()).map((t) => t.name)).toEqual(['add_note', 'read_note']);
  } finally {
    await other.close();
  }
});
