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

Deno.test('lists its tools with their input schemas', () =>
  withClient(async (client) => {
    const tools = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ['add_note', 'read_note']);
    assert.deepEqual(tools[0].inputSchema.required, ['title', 'body']);
  }));

Deno.test('adds a note and reads it back as a resource', () =>
  withClient(async (client) => {
    assert.equal(textOf(await client.callTool('add_note', { title: 'Deno', body: 'on its own runtime' })), 'Saved note 2: Deno');
    const read = await client.readResource('notes://notes/2');
    assert.match(read.contents[0].text, /on its own runtime/);
  }));

Deno.test('answers invalid arguments with an error the model can act on', () =>
  withClient(async (client) => {
    const result = await client.callTool('add_note', { title: '' });
    assert.equal(result.isError, true);
    assert.match(textOf(result), /title/);
    assert.match(textOf(result), /body/);
  }));

Deno.test('fills in the summarize prompt and completes note ids', () =>
  withClient(async (client) => {
    const prompt = await client.getPrompt('summarize', { id: '1' });
    assert.match(JSON.stringify(prompt.messages), /# Welcome/);
    const completion = await client.complete({ type: 'ref/prompt', name: 'summarize' }, { name: 'id', value: '' });
    assert.deepEqual(completion.completion.values, ['1']);
  }));

Deno.test('adds and reads a note at protocol 2026-07-28', () =>
  withClient(
    async (client) => {
      assert.equal(textOf(await client.callTool('add_note', { title: 'Modern', body: 'no handshake' })), 'Saved note 2: Modern');
    },
    { protocolVersion: '2026-07-28' },
  ));
