import 'reflect-metadata';
import { IsEmail, IsInt, IsOptional, IsString, Min } from 'class-validator';
import { InMemoryTransport as SdkInMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Transport as SdkTransport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { Description, InMemoryTransport, McpServer, Tool, ToolError } from '@typemcp/core';
import { connectSdkClient } from '../../../../test-support/sdkClient';
import { expectValidServerMessages, SUPPORTED_SPEC_VERSIONS } from '../../../../test-support/specSchema';

class SignupInput {
  @IsEmail() @Description('Where to send the confirmation') email!: string;
  @IsOptional() @IsInt() @Min(13) age?: number;
}

class ProfileOutput {
  @IsString() email!: string;
  @IsInt() id!: number;
}

class AccountTools {
  @Tool({ description: 'Create an account', output: ProfileOutput })
  signup(input: SignupInput): ProfileOutput {
    if (input.email.endsWith('@blocked.example')) throw new ToolError('That domain is blocked');
    return { email: input.email, id: 1 };
  }
}

const newServer = () => new McpServer({ name: 'accounts', version: '2.0.0', providers: [AccountTools] });

const transports: Array<[string, () => [SdkTransport, SdkTransport]]> = [
  ['the SDK in-memory pair', () => SdkInMemoryTransport.createLinkedPair()],
  ['our in-memory pair', () => InMemoryTransport.createLinkedPair() as unknown as [SdkTransport, SdkTransport]],
];

describe.each(transports)('official SDK client over %s', (_label, createPair) => {
  it.each(SUPPORTED_SPEC_VERSIONS)('serves protocol %s', async (version) => {
    const [clientSide, serverSide] = createPair();
    await newServer().connect(serverSide as never);
    const { client, recorder } = await connectSdkClient(clientSide, { protocolVersion: version });
    try {
      const { tools } = await client.listTools();
      expect(tools).toHaveLength(1);
      expect(tools[0].inputSchema.properties).toEqual({
        email: { type: 'string', format: 'email', description: 'Where to send the confirmation' },
        age: { type: 'integer', minimum: 13 },
      });
      expect('outputSchema' in tools[0]).toBe(version >= '2025-06-18');

      const created = await client.callTool({ name: 'signup', arguments: { email: 'a@b.example' } });
      expect(created.content).toEqual([{ type: 'text', text: '{"email":"a@b.example","id":1}' }]);
      if (version >= '2025-06-18') expect(created.structuredContent).toEqual({ email: 'a@b.example', id: 1 });

      const invalid = await client.callTool({ name: 'signup', arguments: { email: 'nope', age: 3 } });
      expect(invalid.isError).toBe(true);
      const message = (invalid.content as Array<{ text: string }>)[0].text;
      expect(message).toContain('"email": must match format "email"');
      expect(message).toContain('"age": must be >= 13');

      const blocked = await client.callTool({ name: 'signup', arguments: { email: 'x@blocked.example' } });
      expect(blocked).toEqual({ content: [{ type: 'text', text: 'That domain is blocked' }], isError: true });

      await expect(client.callTool({ name: 'login', arguments: {} })).rejects.toMatchObject({ code: -32602 });
      await expect(client.callTool({ name: 'login', arguments: {} })).rejects.toBeInstanceOf(McpError);

      // Malformed JSON through the same channel: answered with -32700, the session goes on.
      await clientSide.send('{"jsonrpc":"2.0",' as never);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(recorder.received.some((r) => (r.message as { error?: { code: number } }).error?.code === -32700)).toBe(true);
      expect(await client.ping()).toEqual({});
    } finally {
      await client.close();
    }
    expectValidServerMessages(version, recorder.received);
  });
});
