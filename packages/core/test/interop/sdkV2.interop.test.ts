/**
 * The official TypeScript SDK v2 client (`@modelcontextprotocol/client`), which speaks
 * 2026-07-28, against TypeMCP over real HTTP on 127.0.0.1 and over stdio pipes.
 */
import 'reflect-metadata';
import path from 'node:path';
import { IsString } from 'class-validator';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Context, McpServer, Tool } from '@typemcp/core';
import { RecordingTransport } from '../../../../test-support/recordingTransport';
import { stdioServerParams } from '../../../../test-support/spawnServer';
import { expectValidServerMessages } from '../../../../test-support/specSchema';

class NameForm {
  @IsString() name!: string;
}

class GreetInput {
  @IsString() greeting!: string;
}

class GreeterTools {
  @Tool({ description: 'Asks for a name, then greets' })
  async greet(input: GreetInput, ctx: Context): Promise<string> {
    const answer = await ctx.elicit('Who is there?', NameForm);
    return answer.action === 'accept' ? `${input.greeting}, ${answer.content.name}!` : 'Nobody';
  }

  @Tool({ description: 'Reports progress and logs' })
  async work(ctx: Context): Promise<string> {
    ctx.log.info('working');
    ctx.progress(1, 2);
    ctx.progress(2, 2);
    return 'worked';
  }

  @Tool({ description: 'Can be switched off' })
  spare(): string {
    return 'spare';
  }
}

const V2 = '2026-07-28';
const clientInfo = { name: 'sdk-v2-interop', version: '1.0.0' };

/** A v2 client pinned to 2026-07-28, recording what the server says. */
function pinnedClient(inner: unknown) {
  const recorder = new RecordingTransport(inner as never);
  const client = new Client(clientInfo, { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: V2 } } });
  client.setRequestHandler('elicitation/create', async (request) => {
    expect(request.params).toMatchObject({ mode: 'form', message: 'Who is there?' });
    return { action: 'accept', content: { name: 'Vee' } };
  });
  return { client, recorder };
}

describe('official SDK v2 client, protocol 2026-07-28', () => {
  let server: McpServer;
  afterEach(() => server?.close());

  it('over Streamable HTTP: discovers, lists, calls with a multi round-trip elicitation, streams progress, listens for changes', async () => {
    server = new McpServer({ name: 'v2-http', version: '3.0.0', providers: [GreeterTools] });
    const { url } = await server.listen({ transport: 'http', port: 0, handleSignals: false });
    const { client, recorder } = pinnedClient(new StreamableHTTPClientTransport(new URL(url)));
    await client.connect(recorder as never);
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe(V2);
      expect(client.getServerVersion()).toMatchObject({ name: 'v2-http', version: '3.0.0' });
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['greet', 'work', 'spare']);

      const greeted = await client.callTool({ name: 'greet', arguments: { greeting: 'Hello' } });
      expect(greeted.content).toEqual([{ type: 'text', text: 'Hello, Vee!' }]);

      const progress: number[] = [];
      const worked = await client.callTool({ name: 'work', arguments: {} }, { onprogress: (p: { progress: number }) => void progress.push(p.progress) });
      expect(worked.content).toEqual([{ type: 'text', text: 'worked' }]);
      expect(progress).toEqual([1, 2]);

      const changed = new Promise<void>((resolve) => client.setNotificationHandler('notifications/tools/list_changed', () => resolve()));
      const subscription = await client.listen({ toolsListChanged: true });
      expect(subscription.honoredFilter).toEqual({ toolsListChanged: true });
      server.tools.disable('spare');
      await changed;
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['greet', 'work']);
      await subscription.close();
    } finally {
      await client.close();
    }
    expectValidServerMessages(V2, recorder.received);
  });

  it('over stdio with version negotiation on auto: probes with server/discover and stays modern on the same pipe', async () => {
    const fixture = path.join(__dirname, 'fixtures', 'stdioServer.ts');
    const recorder = new RecordingTransport(new StdioClientTransport(stdioServerParams(fixture)) as never);
    const client = new Client(clientInfo, { capabilities: {}, versionNegotiation: { mode: 'auto' } });
    await client.connect(recorder as never);
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe(V2);
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['echo', 'noisy', 'sleep']);
      expect((await client.callTool({ name: 'echo', arguments: { text: 'modern stdio' } })).content).toEqual([{ type: 'text', text: 'modern stdio' }]);
      expect((await client.callTool({ name: 'noisy', arguments: {} })).content).toEqual([{ type: 'text', text: 'still clean' }]);
    } finally {
      await client.close();
    }
    expect(recorder.sent[0]).toMatchObject({ method: 'server/discover' });
    expect(recorder.sent.some((m) => 'method' in m && m.method === 'initialize')).toBe(false);
    expectValidServerMessages(V2, recorder.received);
  });
});
