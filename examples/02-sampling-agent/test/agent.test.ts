import path from 'node:path';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { CreateMessageRequest, CreateMessageResult } from '@modelcontextprotocol/sdk/types.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { connectSdkClient } from '../../../test-support/sdkClient';
import { stdioServerParams } from '../../../test-support/spawnServer';
import { expectValidServerMessages } from '../../../test-support/specSchema';
import { createAgentServer } from '../src/server';

type Block = { type: string; [key: string]: any };

/**
 * A scripted model: asked about cities, it first requests get_weather for each of them in
 * one turn, then answers from the tool results.
 */
function scriptedModel(seen: CreateMessageRequest['params'][]) {
  return async (request: CreateMessageRequest): Promise<CreateMessageResult> => {
    const params = request.params;
    seen.push(params);
    const last = params.messages[params.messages.length - 1];
    const blocks = (Array.isArray(last.content) ? last.content : [last.content]) as Block[];
    if (blocks[0].type === 'text') {
      const cities = [...String(blocks[0].text).matchAll(/in (\w+) and (\w+)/g)].flatMap((m) => [m[1], m[2]]);
      return {
        role: 'assistant',
        model: 'scripted-model',
        stopReason: 'toolUse',
        content: cities.map((city, i) => ({ type: 'tool_use', id: `call_${i}`, name: 'get_weather', input: { city } })),
      } as unknown as CreateMessageResult;
    }
    const facts = blocks.map((b) => JSON.parse(b.content[0].text) as { city: string; temperatureC: number; condition: string });
    const text = facts.map((f) => `${f.city}: ${f.temperatureC}°C, ${f.condition}`).join('; ');
    return { role: 'assistant', model: 'scripted-model', stopReason: 'endTurn', content: { type: 'text', text: `${text}. Paris is warmer.` } } as CreateMessageResult;
  };
}

const channels: Array<[string, () => Promise<Transport>]> = [
  ['stdio', async () => new StdioClientTransport(stdioServerParams(path.join(__dirname, '..', 'src', 'main.ts')))],
  [
    'in-memory',
    async () => {
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await createAgentServer().connect(serverSide as never);
      return clientSide;
    },
  ],
];

describe.each(channels)('the sampling agent over %s', (_label, open) => {
  it('runs the tool loop through the client model and answers', async () => {
    const seen: CreateMessageRequest['params'][] = [];
    const { client, recorder } = await connectSdkClient(await open(), {
      protocolVersion: '2025-11-25',
      capabilities: { sampling: { tools: {} } },
    });
    client.setRequestHandler(CreateMessageRequestSchema, scriptedModel(seen));
    try {
      const result = await client.callTool({ name: 'compare_weather', arguments: { cities: ['Paris', 'London'] } });
      expect(result).toEqual({
        content: [{ type: 'text', text: 'Paris: 18°C, partly cloudy; London: 14°C, light rain. Paris is warmer.' }],
      });
      expect(seen).toHaveLength(2);
      expect(seen[0].tools).toEqual([
        {
          name: 'get_weather',
          description: 'Current weather for a city',
          inputSchema: expect.objectContaining({ type: 'object', required: ['city'] }),
        },
      ]);
      expect(seen[0].toolChoice).toEqual({ mode: 'auto' });
      expect(seen[0].maxTokens).toBe(1000);
      expect(seen[1].messages).toHaveLength(3);
      const toolResults = seen[1].messages[2];
      expect(toolResults.role).toBe('user');
      expect(toolResults.content).toEqual([
        { type: 'tool_result', toolUseId: 'call_0', content: [{ type: 'text', text: '{"city":"Paris","temperatureC":18,"condition":"partly cloudy"}' }] },
        { type: 'tool_result', toolUseId: 'call_1', content: [{ type: 'text', text: '{"city":"London","temperatureC":14,"condition":"light rain"}' }] },
      ]);
    } finally {
      await client.close();
    }
    expectValidServerMessages('2025-11-25', recorder.received);
  });

  it('tells a client without sampling.tools what is missing, and sends it nothing', async () => {
    const { client, recorder } = await connectSdkClient(await open(), { protocolVersion: '2025-11-25', capabilities: { sampling: {} } });
    try {
      const result = await client.callTool({ name: 'compare_weather', arguments: { cities: ['Paris', 'London'] } });
      expect(result.isError).toBe(true);
      expect(recorder.received.some((r) => 'method' in r.message && r.message.method === 'sampling/createMessage')).toBe(false);
    } finally {
      await client.close();
    }
  });
});
