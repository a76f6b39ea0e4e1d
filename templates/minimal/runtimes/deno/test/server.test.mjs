// Deno's own test runner on tsc's output (dist/): `npm test` compiles, then runs `deno test`.
// Each test talks to a fresh server in memory through @typemcp/testing.
import assert from 'node:assert/strict';
import testing from '@typemcp/testing';
import server from '../dist/server.js';

async function withClient(run, options) {
  const client = await testing.createTestClient(server.createServer(), options);
  try {
    await run(client);
  } finally {
    await client.close();
  }
}

const textOf = (result) => result.content.map((block) => block.text ?? '').join('');

Deno.test('lists its tool with its input schema', () =>
  withClient(async (client) => {
    const tools = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ['hello']);
    assert.deepEqual(tools[0].inputSchema.required, ['name']);
  }));

Deno.test('says hello', () =>
  withClient(async (client) => {
    assert.equal(textOf(await client.callTool('hello', { name: 'Deno' })), 'Hello, Deno!');
  }));

Deno.test('answers invalid arguments with an error the model can act on', () =>
  withClient(async (client) => {
    const result = await client.callTool('hello', { name: '' });
    assert.equal(result.isError, true);
    assert.match(textOf(result), /name/);
  }));

Deno.test('says hello at protocol 2026-07-28', () =>
  withClient(
    async (client) => {
      assert.equal(textOf(await client.callTool('hello', { name: 'Modern' })), 'Hello, Modern!');
    },
    { protocolVersion: '2026-07-28' },
  ));
