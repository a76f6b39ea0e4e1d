import 'reflect-metadata';
import { IsString } from 'class-validator';
import { describe, expect, it } from 'vitest';
import { Description, Tool } from '@typemcp/core';
import { createTestClient } from '@typemcp/testing';

class GreetInput {
  @IsString() @Description('Who to greet') name!: string;
}

class Greeter {
  // input: is named because vitest's compiler may emit no decorator metadata.
  @Tool({ description: 'Greets someone', input: GreetInput })
  greet(input: GreetInput): string {
    return `Hello, ${input.name}!`;
  }
}

describe('a server tested under vitest', () => {
  it('lists and calls its tool', async () => {
    const client = await createTestClient([Greeter]);
    const tools = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['greet']);
    expect(tools[0].inputSchema).toMatchObject({ required: ['name'] });
    expect(await client.callTool('greet', { name: 'Ada' })).toEqual({ content: [{ type: 'text', text: 'Hello, Ada!' }] });
    expect((await client.callTool('greet', { name: 1 })).isError).toBe(true);
    await client.close();
  });
});
