import 'reflect-metadata';
import { IsString } from 'class-validator';
import { injectable } from 'tsyringe';
import { Completion, Context, Description, HANDSHAKE_VERSIONS, InMemoryTransport, McpServer, metadataStore, Prompt, Resource, Tool, ToolError } from '@typemcp/core';
import type { SamplingTool } from '@typemcp/core';
import { createTestClient, McpRequestError, SchemaViolationError, TestClient, validateServerMessage } from '@typemcp/testing';
import type { SamplingRequestParams } from '@typemcp/testing';

class EchoInput {
  @IsString() @Description('What to echo') text!: string;
}

class NameArgs {
  @IsString() name!: string;
}

class ColourAnswer {
  @IsString() colour!: string;
}

class CityInput {
  @IsString() city!: string;
}

const weather: SamplingTool<CityInput> = {
  name: 'get_weather',
  description: 'Weather of a city',
  input: CityInput,
  run: (input) => `sunny in ${input.city}`,
};

function declareProviders() {
  @injectable()
  class Everything {
    @Tool({ description: 'Echoes its input' })
    echo(input: EchoInput): string {
      return input.text;
    }

    @Tool({ description: 'Always fails' })
    broken(): string {
      throw new ToolError('broken on purpose');
    }

    @Tool({ description: 'Reports progress twice' })
    async slow(ctx: Context): Promise<string> {
      ctx.progress(1, 2, 'half');
      ctx.progress(2, 2, 'done');
      await new Promise((resolve) => setTimeout(resolve, 5));
      return 'finished';
    }

    @Tool({ description: 'Waits until cancelled' })
    async hang(ctx: Context): Promise<string> {
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
      return 'cancelled';
    }

    @Tool({ description: 'Asks the model' })
    async ask(ctx: Context): Promise<string> {
      const answer = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'Say hi' } }], maxTokens: 10 });
      const [first] = Array.isArray(answer.content) ? answer.content : [answer.content];
      return first.type === 'text' ? first.text : '?';
    }

    @Tool({ description: 'Asks the model, which may use get_weather' })
    async forecast(ctx: Context): Promise<string> {
      const answer = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'Weather in Oslo?' } }], maxTokens: 50, tools: [weather] });
      const blocks = Array.isArray(answer.content) ? answer.content : [answer.content];
      return `${blocks.map((b) => (b.type === 'text' ? b.text : b.type)).join('')} after ${answer.iterations} turns`;
    }

    @Tool({ description: 'What the client declared' })
    declared(ctx: Context): string {
      return JSON.stringify(ctx.clientCapabilities);
    }

    @Tool({ description: 'Asks the user' })
    async favourite(ctx: Context): Promise<string> {
      const answer = await ctx.elicit('Favourite colour?', ColourAnswer);
      return answer.action === 'accept' ? answer.content.colour : answer.action;
    }

    @Tool({ description: 'Lists the roots' })
    async where(ctx: Context): Promise<string> {
      return (await ctx.roots()).map((r) => r.uri).join(' ');
    }

    @Resource({ uri: 'mem://fixed', mimeType: 'text/plain' })
    fixed(): string {
      return 'fixed text';
    }

    @Resource({ uri: 'mem://items/{id}', mimeType: 'text/plain' })
    item(vars: { id: string }): string {
      return `item ${vars.id}`;
    }

    @Completion({ resource: 'mem://items/{id}', argument: 'id' })
    ids(value: string): string[] {
      return ['a1', 'a2', 'b1'].filter((id) => id.startsWith(value));
    }

    @Prompt({ description: 'Greets' })
    greet(args: NameArgs): string {
      return `Hello ${args.name}`;
    }
  }
  return Everything;
}

let Everything: ReturnType<typeof declareProviders>;
beforeEach(() => {
  metadataStore.clear();
  Everything = declareProviders();
});

const text = (result: { content: Array<{ text?: string }> }) => result.content.map((c) => c.text).join('');

type Message = { jsonrpc: '2.0'; id?: number | string; method?: string; params?: Record<string, unknown>; result?: unknown };

/**
 * A hand-written server: it completes the handshake at `protocolVersion` and passes every other
 * message to `handle`, with a function that sends to the client.
 */
async function handWrittenServer(handle: (message: Message, send: (message: unknown) => void) => void, protocolVersion = '2025-11-25') {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const send = (message: unknown) => void serverSide.send(message as never);
  serverSide.onmessage = (raw) => {
    const message = raw as Message;
    if (message.method === 'initialize') {
      send({ jsonrpc: '2.0', id: message.id, result: { protocolVersion, capabilities: { tools: {}, resources: {}, prompts: {} }, serverInfo: { name: 'raw', version: '1' } } });
    } else handle(message, send);
  };
  await serverSide.start();
  return clientSide;
}

describe('createTestClient', () => {
  it('creates a server from provider classes, completes the handshake and closes both', async () => {
    const client = await createTestClient([Everything]);
    expect(client.serverInfo).toEqual({ name: 'test-server', version: '0.0.0' });
    expect(client.protocolVersion).toBe('2025-11-25');
    expect(client.serverCapabilities).toMatchObject({ tools: { listChanged: true }, completions: {} });
    await client.close();
    await expect(client.callTool('echo', { text: 'x' })).rejects.toThrow('the test client is closed');
  });

  it('uses a server passed in and leaves it open', async () => {
    const server = new McpServer({ name: 'mine', version: '1.2.3', instructions: 'Be kind', providers: [Everything] });
    const first = await createTestClient(server, { protocolVersion: '2025-03-26' });
    expect(first.serverInfo).toEqual({ name: 'mine', version: '1.2.3' });
    expect(first.instructions).toBe('Be kind');
    expect(first.protocolVersion).toBe('2025-03-26');
    await first.close();
    const second = await createTestClient(server);
    expect(text(await second.callTool('echo', { text: 'still serving' }))).toBe('still serving');
    await second.close();
    await server.close();
  });

  it('accepts server options', async () => {
    const client = await createTestClient({ name: 'from-options', version: '9.9.9', providers: [Everything] });
    expect(client.serverInfo.name).toBe('from-options');
    await client.close();
  });

  it.each(HANDSHAKE_VERSIONS)('speaks protocol %s', async (version) => {
    const client = await createTestClient([Everything], { protocolVersion: version });
    expect(client.protocolVersion).toBe(version);
    expect((await client.listTools()).map((t) => t.name)).toContain('echo');
    await client.close();
  });
});

describe('TestClient helpers', () => {
  let client: TestClient;
  beforeEach(async () => {
    client = await createTestClient([Everything]);
  });
  afterEach(() => client.close());

  it('lists and calls tools; tool errors come back as results', async () => {
    const tools = await client.listTools();
    expect(tools.find((t) => t.name === 'echo')?.inputSchema).toMatchObject({ properties: { text: { type: 'string', description: 'What to echo' } } });
    expect(text(await client.callTool('echo', { text: 'hi' }))).toBe('hi');
    const failed = await client.callTool('broken');
    expect(failed).toMatchObject({ isError: true, content: [{ type: 'text', text: 'broken on purpose' }] });
    const invalid = await client.callTool('echo', { text: 3 });
    expect(invalid.isError).toBe(true);
  });

  it('rejects JSON-RPC errors with McpRequestError carrying the code', async () => {
    const error = await client.callTool('nope').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpRequestError);
    expect(error).toMatchObject({ method: 'tools/call', code: -32602 });
    await expect(client.request('no/such/method')).rejects.toMatchObject({ code: -32601 });
  });

  it('reads resources and templates, completes, and gets prompts', async () => {
    expect((await client.listResources()).map((r) => r.uri)).toEqual(['mem://fixed']);
    expect((await client.listResourceTemplates()).map((t) => t.uriTemplate)).toEqual(['mem://items/{id}']);
    expect((await client.readResource('mem://items/42')).contents).toEqual([{ uri: 'mem://items/42', mimeType: 'text/plain', text: 'item 42' }]);
    expect((await client.complete({ type: 'ref/resource', uri: 'mem://items/{id}' }, { name: 'id', value: 'a' })).completion.values).toEqual(['a1', 'a2']);
    expect((await client.listPrompts()).map((p) => p.name)).toEqual(['greet']);
    expect((await client.getPrompt('greet', { name: 'Ada' })).messages[0].content).toEqual({ type: 'text', text: 'Hello Ada' });
  });


  it('records every notification and reports progress to the call that asked', async () => {
    await client.setLogLevel('debug');
    const updates: unknown[] = [];
    const result = await client.callTool('slow', undefined, { onprogress: (u) => updates.push(u) });
    expect(text(result)).toBe('finished');
    expect(updates).toEqual([
      { progress: 1, total: 2, message: 'half' },
      { progress: 2, total: 2, message: 'done' },
    ]);
    expect(client.notifications.filter((n) => n.method === 'notifications/progress')).toHaveLength(2);
  });

  it('cancels a call when its signal aborts', async () => {
    const controller = new AbortController();
    const call = client.callTool('hang', undefined, { signal: controller.signal });
    setTimeout(() => controller.abort('enough'), 10);
    await expect(call).rejects.toThrow('tools/call was cancelled: enough');
    expect(text(await client.callTool('echo', { text: 'alive' }))).toBe('alive');
  });

  it('fails a call that gets no answer in time', async () => {
    await expect(client.callTool('hang', undefined, { timeoutMs: 20 })).rejects.toThrow('tools/call got no answer within 20 ms');
  });
});

describe('notifications', () => {
  it('subscribes to resources and waits for the next notification', async () => {
    const server = new McpServer({ name: 'subs', version: '1', providers: [Everything] });
    const client = await createTestClient(server);
    await client.subscribe('mem://fixed');
    const updated = client.nextNotification('notifications/resources/updated');
    server.resources.notifyUpdated('mem://fixed');
    expect(await updated).toEqual({ uri: 'mem://fixed' });

    await client.unsubscribe('mem://fixed');
    const listChanged = client.nextNotification('notifications/tools/list_changed');
    server.tools.disable('broken');
    expect(await listChanged).toBeUndefined();
    expect(client.notifications.map((n) => n.method)).toEqual(['notifications/resources/updated', 'notifications/tools/list_changed']);
    await expect(client.nextNotification('notifications/prompts/list_changed', { timeoutMs: 20 })).rejects.toThrow(
      'No notifications/prompts/list_changed notification within 20 ms',
    );
    await client.close();
    await server.close();
  });

  it('stops calling a handler once unsubscribed', async () => {
    const server = new McpServer({ name: 'subs', version: '1', providers: [Everything] });
    const client = await createTestClient(server);
    const seen: unknown[] = [];
    const stop = client.onNotification('notifications/tools/list_changed', (params) => seen.push(params ?? 'no params'));
    const first = client.nextNotification('notifications/tools/list_changed');
    server.tools.disable('broken');
    await first;
    stop();
    const second = client.nextNotification('notifications/tools/list_changed');
    server.tools.enable('broken');
    await second;
    expect(seen).toEqual(['no params']);
    expect(client.notifications).toHaveLength(2);
    await client.close();
    await server.close();
  });
});

describe('close', () => {
  it('fails the calls still waiting for an answer', async () => {
    const client = await TestClient.connect(await handWrittenServer(() => undefined));
    const call = client.request('tools/list');
    await client.close();
    await expect(call).rejects.toThrow('The test client was closed');
  });

  it('fails waiting calls when the server closes the connection', async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    serverSide.onmessage = (raw) => {
      const m = raw as Message;
      if (m.method === 'initialize') {
        void serverSide.send({ jsonrpc: '2.0', id: m.id!, result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'raw', version: '1' } } });
      } else if (m.method === 'tools/list') void serverSide.close();
    };
    await serverSide.start();
    const client = await TestClient.connect(clientSide);
    await expect(client.listTools()).rejects.toThrow('The connection to the server closed');
    await expect(client.listTools()).rejects.toThrow('Cannot send tools/list: the test client is closed');
    await client.close();
  });

  it('closes a server it created, and only that one', async () => {
    const created = await createTestClient([Everything]);
    const closing = jest.spyOn(McpServer.prototype, 'close');
    await created.close();
    expect(closing).toHaveBeenCalledTimes(1);
    const server = new McpServer({ name: 'kept', version: '1', providers: [Everything] });
    const given = await createTestClient(server);
    await given.close();
    expect(closing).toHaveBeenCalledTimes(1);
    closing.mockRestore();
    await server.close();
  });
});

describe('client-feature fakes', () => {
  it('answers sampling, elicitation and roots with the fakes', async () => {
    const sampled: unknown[] = [];
    const client = await createTestClient([Everything], {
      sampling: (params) => {
        sampled.push(params);
        return { role: 'assistant', content: { type: 'text', text: 'hi there' }, model: 'fake-model' };
      },
      elicitation: () => ({ action: 'accept', content: { colour: 'teal' } }),
      roots: [{ uri: 'file:///work', name: 'work' }],
    });
    expect(text(await client.callTool('ask'))).toBe('hi there');
    expect(sampled).toEqual([expect.objectContaining({ maxTokens: 10 })]);
    expect(text(await client.callTool('favourite'))).toBe('teal');
    expect(text(await client.callTool('where'))).toBe('file:///work');
    await client.close();
  });

  it('a roots function is asked each time the server lists roots', async () => {
    let calls = 0;
    const client = await createTestClient([Everything], { roots: () => [{ uri: `file:///r${++calls}` }] });
    expect(text(await client.callTool('where'))).toBe('file:///r1');
    await client.close();
  });

  it('declares no capability it has no fake for, so the server says what is missing', async () => {
    const client = await createTestClient([Everything]);
    const result = await client.callTool('ask');
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/sampling/);
    await client.close();
  });

  it('a fake that throws answers the server with that error', async () => {
    const client = await createTestClient([Everything], {
      elicitation: () => {
        throw new Error('no user here');
      },
    });
    await expect(client.callTool('favourite')).rejects.toThrow('no user here');
    await client.close();
  });

  it('answers every turn of a sampling tool loop', async () => {
    const turns: SamplingRequestParams[] = [];
    const client = await createTestClient([Everything], {
      sampling: (params) => {
        turns.push(params);
        const last = params.messages.at(-1)!;
        const blocks = Array.isArray(last.content) ? last.content : [last.content];
        return blocks.some((block) => block.type === 'tool_result')
          ? { role: 'assistant', content: { type: 'text', text: 'Oslo is sunny' }, model: 'fake', stopReason: 'endTurn' }
          : { role: 'assistant', content: [{ type: 'tool_use', id: 'call-1', name: 'get_weather', input: { city: 'Oslo' } }], model: 'fake', stopReason: 'toolUse' };
      },
    });
    expect(text(await client.callTool('forecast'))).toBe('Oslo is sunny after 2 turns');
    expect(turns.map((t) => t.tools?.map((tool) => tool.name))).toEqual([['get_weather'], ['get_weather']]);
    expect(turns[1].messages.at(-1)).toEqual({
      role: 'user',
      content: [expect.objectContaining({ type: 'tool_result', toolUseId: 'call-1', content: [{ type: 'text', text: 'sunny in Oslo' }] })],
    });
    await client.close();
  });

  it.each([
    ['2025-11-25', { sampling: { tools: {} }, elicitation: { form: {}, url: {} }, roots: { listChanged: true } }],
    ['2025-06-18', { sampling: {}, elicitation: {}, roots: { listChanged: true } }],
    ['2025-03-26', { sampling: {}, roots: { listChanged: true } }],
  ])('declares the capabilities of the fakes it has at %s', async (protocolVersion, expected) => {
    const fake = () => ({});
    const client = await createTestClient([Everything], { protocolVersion, sampling: fake, elicitation: fake, roots: [] });
    expect(JSON.parse(text(await client.callTool('declared')))).toEqual(expected);
    await client.close();
    const bare = await createTestClient([Everything], { protocolVersion });
    expect(JSON.parse(text(await bare.callTool('declared')))).toEqual({});
    await bare.close();
  });

  it('a tool loop needs 2025-11-25: before it, sampling is declared without tools', async () => {
    const client = await createTestClient([Everything], { protocolVersion: '2025-06-18', sampling: () => ({}) });
    const result = await client.callTool('forecast');
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/sampling\.tools/);
    await client.close();
  });

  it('answers ping from the server', async () => {
    const answers: unknown[] = [];
    const transport = await handWrittenServer((message, send) => {
      if (message.method === 'notifications/initialized') send({ jsonrpc: '2.0', id: 'p1', method: 'ping' });
      else if (message.id === 'p1') answers.push(message);
    });
    const client = await TestClient.connect(transport);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(answers).toEqual([{ jsonrpc: '2.0', id: 'p1', result: {} }]);
    await client.close();
  });

  it('answers a request it has no fake for with -32601 naming the option', async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const sent: unknown[] = [];
    serverSide.onmessage = (message) => {
      sent.push(message);
      const m = message as { id?: number; method?: string };
      if (m.method === 'initialize') {
        void serverSide.send({ jsonrpc: '2.0', id: m.id!, result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'raw', version: '1' } } });
      }
      if (m.method === 'notifications/initialized') void serverSide.send({ jsonrpc: '2.0', id: 'q', method: 'roots/list' });
    };
    await serverSide.start();
    const client = await TestClient.connect(clientSide);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(sent.at(-1)).toEqual({
      jsonrpc: '2.0',
      id: 'q',
      error: { code: -32601, message: 'The test client has no fake for roots/list: pass { roots: [...] } to createTestClient' },
    });
    await client.close();
  });
});

describe('schema checks', () => {
  /** A hand-written server that answers tools/list with whatever the test gives it. */
  async function rawServer(toolsListResult: unknown, options: { protocolVersion?: string } = {}) {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    serverSide.onmessage = (message) => {
      const m = message as { id?: number; method?: string };
      if (m.method === 'initialize') {
        void serverSide.send({ jsonrpc: '2.0', id: m.id!, result: { protocolVersion: options.protocolVersion ?? '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'raw', version: '1' } } });
      } else if (m.method === 'tools/list') {
        void serverSide.send({ jsonrpc: '2.0', id: m.id!, result: toolsListResult } as never);
      }
    };
    await serverSide.start();
    return clientSide;
  }

  it('fails the call whose answer breaks the schema, naming the path', async () => {
    const client = await TestClient.connect(await rawServer({ tools: [{ name: 'x' }] }));
    const error = await client.listTools().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SchemaViolationError);
    expect((error as Error).message).toContain('(the answer to tools/list) fails the 2025-11-25 schema');
    expect((error as Error).message).toContain("/result/tools/0 must have required property 'inputSchema'");
    await client.close();
  });

  it('checks only the envelope of answers to methods the schema does not define', async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    serverSide.onmessage = (message) => {
      const m = message as { id: number; method: string };
      const result = m.method === 'initialize' ? { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'raw', version: '1' } } : { anything: [1, 2] };
      if (m.id !== undefined) void serverSide.send({ jsonrpc: '2.0', id: m.id, result });
    };
    await serverSide.start();
    const client = await TestClient.connect(clientSide);
    expect(await client.request('acme/custom')).toEqual({ anything: [1, 2] });
    await client.close();
  });

  it('reports an invalid notification on the next call, naming the message and the path', async () => {
    const transport = await handWrittenServer((message, send) => {
      if (message.method === 'notifications/initialized') send({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'loud', data: 'x' } });
      else if (message.method === 'tools/list') send({ jsonrpc: '2.0', id: message.id, result: { tools: [] } });
    });
    const client = await TestClient.connect(transport);
    await new Promise((resolve) => setTimeout(resolve, 10));
    const error = (await client.listTools().catch((e: unknown) => e)) as SchemaViolationError;
    expect(error).toBeInstanceOf(SchemaViolationError);
    expect(error.violations).toHaveLength(1);
    expect(error.violations[0]).toContain('{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"loud","data":"x"}} fails the 2025-11-25 schema');
    expect(error.violations[0]).toContain('/params/level must be equal to one of the allowed values');
    expect(await client.listTools()).toEqual([]);
    await client.close();
  });

  it('close() reports a violation no call has reported yet', async () => {
    const transport = await handWrittenServer((message, send) => {
      if (message.method === 'notifications/initialized') send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: 'not an object' });
    });
    const client = await TestClient.connect(transport);
    await new Promise((resolve) => setTimeout(resolve, 10));
    await expect(client.close()).rejects.toThrow(/notifications\/tools\/list_changed.*fails the 2025-11-25 schema/);
    await expect(client.close()).resolves.toBeUndefined();
  });

  it('reports text that is not JSON', async () => {
    const transport = await handWrittenServer((message, send) => {
      if (message.method === 'notifications/initialized') send('{oops');
    });
    const client = await TestClient.connect(transport);
    await new Promise((resolve) => setTimeout(resolve, 10));
    await expect(client.close()).rejects.toThrow('the server sent text that is not JSON: {oops');
  });

  it('checks server requests against the schema too', async () => {
    const transport = await handWrittenServer((message, send) => {
      if (message.method === 'notifications/initialized') send({ jsonrpc: '2.0', id: 's1', method: 'sampling/createMessage', params: { messages: [] } });
    });
    const client = await TestClient.connect(transport, { sampling: () => ({ role: 'assistant', content: { type: 'text', text: '' }, model: 'm' }) });
    await new Promise((resolve) => setTimeout(resolve, 10));
    await expect(client.close()).rejects.toThrow("must have required property 'maxTokens'");
  });

  it('can be turned off', async () => {
    const client = await TestClient.connect(await rawServer({ tools: [{ name: 'x' }] }), { schemaCheck: false });
    expect(await client.listTools()).toEqual([{ name: 'x' }]);
    await client.close();
  });

  it('refuses a server that answers another protocol version', async () => {
    await expect(TestClient.connect(await rawServer({ tools: [] }, { protocolVersion: '2025-06-18' }))).rejects.toThrow(
      'Asked the server for protocol 2025-11-25 but it answered 2025-06-18',
    );
  });

  it('exports the checker for messages recorded elsewhere', () => {
    expect(validateServerMessage('2025-06-18', { jsonrpc: '2.0', id: 1, result: { tools: [] } }, { requestMethod: 'tools/list' })).toEqual([]);
    expect(validateServerMessage('2025-06-18', { jsonrpc: '2.0', method: 'notifications/unknown' })[0]).toMatch(/is not a ServerNotification/);
  });
});

describe('pagination', () => {
  it('follows nextCursor to the end', async () => {
    const server = new McpServer({ name: 'paged', version: '1', providers: [Everything], pageSize: 2 });
    const client = await createTestClient(server);
    const spy = jest.spyOn(client, 'request');
    expect((await client.listTools()).map((t) => t.name)).toEqual(['echo', 'broken', 'slow', 'hang', 'ask', 'forecast', 'declared', 'favourite', 'where']);
    const pages = spy.mock.calls.map((call) => call[1]);
    expect(pages).toHaveLength(5);
    expect(pages[0]).toBeUndefined();
    expect(pages[1]).toEqual({ cursor: expect.any(String) });
    await client.close();
    await server.close();
  });
  it.each([
    ['listTools', 'tools/list', 'tools', { name: 't', inputSchema: { type: 'object' } }],
    ['listResources', 'resources/list', 'resources', { uri: 'mem://r', name: 'r' }],
    ['listResourceTemplates', 'resources/templates/list', 'resourceTemplates', { uriTemplate: 'mem://{x}', name: 'x' }],
    ['listPrompts', 'prompts/list', 'prompts', { name: 'p' }],
  ] as const)('%s asks for every page', async (helper, method, key, item) => {
    const cursors: unknown[] = [];
    const transport = await handWrittenServer((message, send) => {
      if (message.method !== method) return;
      const page = Number(message.params?.cursor ?? 0);
      cursors.push(message.params?.cursor);
      const result: Record<string, unknown> = { [key]: [{ ...item, name: `${item.name}${page}` }] };
      if (page < 2) result.nextCursor = String(page + 1);
      send({ jsonrpc: '2.0', id: message.id, result });
    });
    const client = await TestClient.connect(transport);
    const items = (await client[helper]()) as Array<{ name: string }>;
    expect(items.map((i) => i.name)).toEqual([`${item.name}0`, `${item.name}1`, `${item.name}2`]);
    expect(cursors).toEqual([undefined, '1', '2']);
    await client.close();
  });

  it('refuses cursors that would never end', async () => {
    const transport = await handWrittenServer((message, send) => {
      if (message.method === 'prompts/list') send({ jsonrpc: '2.0', id: message.id, result: { prompts: [], nextCursor: 'again' } });
    });
    const client = await TestClient.connect(transport);
    await expect(client.listPrompts()).rejects.toThrow('prompts/list returned the cursor "again" twice: the pages would never end');
    await client.close();
  });
});

describe('protocol 2026-07-28 (no handshake)', () => {
  const modern = { protocolVersion: '2026-07-28' } as const;

  it('discovers the server instead of initializing, and sends _meta with every request', async () => {
    const server = new McpServer({ name: 'modern', version: '2.0.0', instructions: 'Stateless', providers: [Everything] });
    const client = await createTestClient(server, { ...modern, elicitation: () => ({ action: 'decline' }) });
    expect(client.stateless).toBe(true);
    expect(client.serverInfo).toEqual({ name: 'modern', version: '2.0.0' });
    expect(client.instructions).toBe('Stateless');
    expect(client.serverCapabilities).toMatchObject({ tools: { listChanged: true } });
    expect(server.sessions.every((s) => s.state === 'awaiting-initialize')).toBe(true);
    expect(JSON.parse(text(await client.callTool('declared')))).toEqual({ elicitation: { form: {}, url: {} } });
    expect((await client.callTool('echo', { text: 'modern' })).resultType).toBe('complete');
    await client.close();
    await server.close();
  });

  it('answers input_required with the fakes and retries until the call completes', async () => {
    const asked: string[] = [];
    const client = await createTestClient([Everything], {
      ...modern,
      elicitation: (params) => {
        asked.push(params.message);
        return { action: 'accept', content: { colour: 'teal' } };
      },
      sampling: () => ({ role: 'assistant', content: { type: 'text', text: 'hi there' }, model: 'fake', stopReason: 'endTurn' }),
      roots: [{ uri: 'file:///a' }, { uri: 'file:///b' }],
    });
    expect(text(await client.callTool('favourite'))).toBe('teal');
    expect(asked).toEqual(['Favourite colour?']);
    expect(text(await client.callTool('ask'))).toBe('hi there');
    expect(text(await client.callTool('where'))).toBe('file:///a file:///b');
    await client.close();
  });

  it('declares only what it has fakes for: the server answers -32021 for the rest', async () => {
    const client = await createTestClient([Everything], { ...modern, elicitation: () => ({ action: 'cancel' }) });
    await expect(client.callTool('ask')).rejects.toMatchObject({ code: -32021, data: { requiredCapabilities: { sampling: {} } } });
    await client.close();
  });

  it('sends the log level in _meta, and logs arrive only then', async () => {
    class Chatty {
      @Tool({ description: 'Logs' })
      talk(ctx: Context): string {
        ctx.log.warning('careful');
        return 'said';
      }
    }
    const client = await createTestClient([Chatty], modern);
    await client.callTool('talk');
    expect(client.notifications.filter((n) => n.method === 'notifications/message')).toEqual([]);
    await client.setLogLevel('info');
    await client.callTool('talk');
    expect(client.notifications.filter((n) => n.method === 'notifications/message').map((n) => n.params?.data)).toEqual(['careful']);
    await client.close();
  });

  it('listens for changes with subscriptions/listen; resources/subscribe is refused', async () => {
    const server = new McpServer({ name: 'changes', version: '1', providers: [Everything] });
    const client = await createTestClient(server, modern);
    await expect(client.subscribe('mem://fixed')).rejects.toThrow(/use listen/);
    const subscription = await client.listen({ toolsListChanged: true, resourceSubscriptions: ['mem://fixed'] });
    expect(subscription.honoured).toEqual({ toolsListChanged: true, resourceSubscriptions: ['mem://fixed'] });
    const changed = client.nextNotification('notifications/tools/list_changed');
    server.tools.disable('broken');
    expect((await changed)?._meta).toEqual({ 'io.modelcontextprotocol/subscriptionId': expect.any(Number) });
    server.resources.notifyUpdated('mem://fixed');
    expect((await client.nextNotification('notifications/resources/updated'))?.uri).toBe('mem://fixed');
    await subscription.close();
    expect(await subscription.ended).toBe('closed');
    await client.close();
    await server.close();
  });

  it('refuses listen in the handshake era', async () => {
    const client = await createTestClient([Everything]);
    await expect(client.listen({ toolsListChanged: true })).rejects.toThrow(/needs protocol 2026-07-28/);
    await client.close();
  });
});
