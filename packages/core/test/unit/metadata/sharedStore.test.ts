import 'reflect-metadata';
import { IsString } from 'class-validator';
import { McpServer, metadataStore } from '@typemcp/core';
import { createTestClient } from '@typemcp/testing';

/** A second, separately loaded copy of @typemcp/core, as a nested install or an ESM build beside CJS would give. */
function loadSecondCopy(): typeof import('../../../src') {
  let copy!: typeof import('../../../src');
  jest.isolateModules(() => {
    copy = require('../../../src');
  });
  return copy;
}

class EchoInput {
  @IsString() text!: string;
}

describe('the metadata store', () => {
  const other = loadSecondCopy();
  beforeEach(() => metadataStore.clear());

  it('is one store for every copy of @typemcp/core in the process', () => {
    expect(other.McpServer).not.toBe(McpServer);
    expect(other.metadataStore).toBe(metadataStore);
    expect(metadataStore).toBe((globalThis as Record<symbol, unknown>)[Symbol.for('typemcp.metadataStore.v1')]);
  });

  it('lets a server of one copy serve tools declared with the decorators of another', async () => {
    class Echo {
      echo(input: EchoInput): string {
        return input.text;
      }
    }
    other.Description('What to say back')(EchoInput.prototype, 'text');
    other.Tool({ description: 'Echoes', input: EchoInput })(Echo.prototype, 'echo', Object.getOwnPropertyDescriptor(Echo.prototype, 'echo')!);

    const client = await createTestClient([Echo]);
    const [tool] = await client.listTools();
    expect(tool).toMatchObject({ name: 'echo', description: 'Echoes', inputSchema: { properties: { text: { type: 'string', description: 'What to say back' } } } });
    expect((await client.callTool('echo', { text: 'across copies' })).content).toEqual([{ type: 'text', text: 'across copies' }]);
    await client.close();
  });
});
