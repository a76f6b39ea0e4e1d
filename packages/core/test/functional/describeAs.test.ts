import 'reflect-metadata';
import { DefinitionError, McpServer } from '@typemcp/core';
import { createTestClient } from '@typemcp/testing';

/** A server that learns its title and instructions after it was made (a proxy, from its upstream). */
describe('McpServer.describeAs', () => {
  it.each(['2025-11-25', '2026-07-28'])('tells clients that connect from now on, at %s', async (protocolVersion) => {
    const server = new McpServer({ name: 'gateway', version: '1.0.0', title: 'Gateway' });
    const before = await createTestClient(server, { protocolVersion });
    expect(before.serverInfo.title).toBe('Gateway');
    expect(before.instructions).toBeUndefined();

    server.describeAs({ title: 'Notes (through the gateway)', instructions: 'Search before you write.' });
    const after = await createTestClient(server, { protocolVersion });
    expect(after.serverInfo).toMatchObject({ name: 'gateway', version: '1.0.0', title: 'Notes (through the gateway)' });
    expect(after.instructions).toBe('Search before you write.');

    // A field given as undefined is dropped; one left out is kept.
    server.describeAs({ title: undefined });
    const dropped = await createTestClient(server, { protocolVersion });
    expect(dropped.serverInfo.title).toBeUndefined();
    expect(dropped.instructions).toBe('Search before you write.');
    await Promise.all([before.close(), after.close(), dropped.close()]);
    await server.close();
  });

  it('refuses a title or instructions that are not strings', () => {
    const server = new McpServer({ name: 'gateway', version: '1.0.0' });
    expect(() => server.describeAs({ title: 42 as never })).toThrow(new DefinitionError('INVALID_OPTION', 'McpServer.describeAs: title must be a string, not number'));
    expect(() => server.describeAs({ instructions: {} as never })).toThrow(DefinitionError);
  });
});
