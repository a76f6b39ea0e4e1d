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

test('lists its tool with its input schema', async () => {
  const tools = await client.listTools();
  expect(tools.map((t) => t.name)).toEqual(['hello']);
  expect(tools[0].inputSchema).toMatchObject({ type: 'object', required: ['name'], properties: { name: { type: 'string', minLength: 1 } } });
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
  const other = await createTestClient(createServer(), { protocolVersion });
  try {
    expect(textOf(await other.callTool('hello', { name: 'Era' }))).toBe('Hello, Era!');
  } finally {
    await other.close();
  }
});
