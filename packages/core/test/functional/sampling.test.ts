import 'reflect-metadata';
import { IsString } from 'class-validator';
import {
  ClientCapabilityError,
  Context,
  McpServer,
  RequestEndedError,
  SamplingRuleError,
  Tool,
  ToolError,
  UserRejectedError,
  InvalidClientResponseError,
} from '@typemcp/core';
import type { SampleRequest } from '@typemcp/core';
import { checkedClients, RawClient } from './rawClient';

const text = (t: string) => ({ type: 'text' as const, text: t });
const ask: SampleRequest = { messages: [{ role: 'user', content: text('hi') }], maxTokens: 10 };

let nextRequest: SampleRequest = ask;
let escaped: (() => Promise<unknown>) | undefined;

class CityInput {
  @IsString() city!: string;
}

class Lookup {
  @Tool({ description: 'Weather for a city' })
  get_weather(input: CityInput): string {
    if (input.city === 'Atlantis') throw new ToolError('No such city');
    return `${input.city}: sunny`;
  }
}

class Agent {
  /** Runs ctx.sample(nextRequest) and reports the outcome as text. */
  @Tool() async run(ctx: Context): Promise<string> {
    try {
      const result = await ctx.sample(nextRequest);
      escaped = () => ctx.sample(ask);
      return JSON.stringify(result);
    } catch (error) {
      return `${(error as Error).constructor.name}: ${(error as Error).message}`;
    }
  }

  @Tool() async loop(ctx: Context): Promise<string> {
    const result = await ctx.sample({ ...ask, tools: [Lookup], maxIterations: 3 });
    return JSON.stringify({ iterations: result.iterations, transcript: result.transcript, final: result.content });
  }

  @Tool() async roots(ctx: Context): Promise<string> {
    const first = await ctx.roots();
    const second = await ctx.roots();
    return JSON.stringify({ first, same: first === second });
  }
}

const newServer = () => new McpServer({ name: 'agent', version: '1', providers: [Agent], requestTimeoutMs: 2000 });
const checked = checkedClients();
const connect = (capabilities: Record<string, unknown>, version = '2025-11-25') => checked(newServer(), version, capabilities);
afterEach(() => {
  nextRequest = ask;
});

const sent = (client: RawClient, method = 'sampling/createMessage') => client.received.filter((r) => r.message.method === method).map((r) => r.message);
const outcome = async (client: RawClient, tool = 'run') => (await client.request('tools/call', { name: tool })).result.content[0].text as string;

describe('ctx.sample', () => {
  it('sends one sampling/createMessage associated with the request and returns the answer', async () => {
    const client = await connect({ sampling: {} });
    client.onRequest = (request) => ({ jsonrpc: '2.0', id: request.id, result: { role: 'assistant', content: text('hello'), model: 'm', stopReason: 'endTurn' } });
    nextRequest = {
      ...ask,
      systemPrompt: 'be brief',
      temperature: 0.2,
      stopSequences: ['END'],
      metadata: { trace: 1 },
      modelPreferences: { hints: [{ name: 'claude' }], costPriority: 0.1, speedPriority: 1, intelligencePriority: 0 },
    };
    expect(JSON.parse(await outcome(client))).toEqual({ role: 'assistant', content: text('hello'), model: 'm', stopReason: 'endTurn' });
    const [request] = sent(client);
    expect(request.params).toEqual({ ...nextRequest });
  });

  it.each([
    ['no sampling capability', {}, ask, 'ClientCapabilityError: The client did not declare the "sampling" capability'],
    ['tools without sampling.tools', { sampling: {} }, { ...ask, tools: [{ name: 't', inputSchema: { type: 'object' } }] }, 'ClientCapabilityError: Sampling with tools needs'],
    ['includeContext without sampling.context', { sampling: {} }, { ...ask, includeContext: 'thisServer' }, 'ClientCapabilityError: includeContext "thisServer" needs'],
    ['a missing maxTokens', { sampling: {} }, { messages: ask.messages }, 'SamplingRuleError: maxTokens must be a positive integer'],
    ['a priority above 1', { sampling: {} }, { ...ask, modelPreferences: { costPriority: 2 } }, 'SamplingRuleError: modelPreferences.costPriority must be a number from 0 to 1'],
    ['no messages', { sampling: {} }, { ...ask, messages: [] }, 'SamplingRuleError: messages must be a non-empty array'],
    [
      'tool results mixed with text',
      { sampling: { tools: {} } },
      {
        ...ask,
        messages: [
          { role: 'user', content: text('weather?') },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 't', input: {} }] },
          { role: 'user', content: [{ type: 'tool_result', toolUseId: 'a', content: [] }, text('and also')] },
        ],
      },
      'SamplingRuleError: messages[2]: a user message with tool results must hold only tool results',
    ],
    [
      'an unanswered tool_use',
      { sampling: { tools: {} } },
      {
        ...ask,
        messages: [
          { role: 'user', content: text('weather?') },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 't', input: {} }, { type: 'tool_use', id: 'b', name: 't', input: {} }] },
          { role: 'user', content: [{ type: 'tool_result', toolUseId: 'a', content: [] }] },
        ],
      },
      'SamplingRuleError: messages[1]: every tool_use must be answered by a tool_result in the next (user) message; unanswered: b',
    ],
    [
      'a tool_result answering nothing',
      { sampling: { tools: {} } },
      { ...ask, messages: [{ role: 'user', content: [{ type: 'tool_result', toolUseId: 'zzz', content: [] }] }] },
      'SamplingRuleError: messages[0]: tool_result "zzz" answers no tool_use',
    ],
    ['an unknown role', { sampling: {} }, { ...ask, messages: [{ role: 'system', content: text('x') }] }, 'SamplingRuleError: messages[0].role must be "user" or "assistant"'],
  ])('refuses %s before sending anything', async (_label, capabilities, request, error) => {
    const client = await connect(capabilities as Record<string, unknown>);
    nextRequest = request as SampleRequest;
    expect(await outcome(client)).toContain(error);
    expect(sent(client)).toHaveLength(0);
  });

  it('refuses tools in a protocol version without them', async () => {
    const client = await connect({ sampling: { tools: {} } }, '2025-06-18');
    nextRequest = { ...ask, tools: [{ name: 't', inputSchema: { type: 'object' } }] };
    expect(await outcome(client)).toContain('speaks 2025-06-18');
    expect(sent(client)).toHaveLength(0);
  });

  it('surfaces a user rejection (-1) as UserRejectedError', async () => {
    const client = await connect({ sampling: {} });
    client.onRequest = (request) => ({ jsonrpc: '2.0', id: request.id, error: { code: -1, message: 'User rejected sampling request' } });
    expect(await outcome(client)).toBe('UserRejectedError: User rejected sampling request');
    expect(new UserRejectedError().code).toBe(-1);
  });

  it.each([
    ['a missing model', { role: 'assistant', content: text('x') }, '"model" must be a string'],
    ['an odd role', { role: 'robot', content: text('x'), model: 'm' }, '"role" must be "assistant" or "user"'],
    ['empty content', { role: 'assistant', content: [], model: 'm' }, '"content" must be a content block'],
    ['an unknown block', { role: 'assistant', content: { type: 'video' }, model: 'm' }, 'content of unknown type "video"'],
    ['tool use nobody offered', { role: 'assistant', content: { type: 'tool_use', id: 'a', name: 'x', input: {} }, model: 'm' }, 'it asks to use a tool, but no tools were offered'],
  ])('checks the answer: %s', async (_label, answer, problem) => {
    const client = await connect({ sampling: {} });
    client.onRequest = (request) => ({ jsonrpc: '2.0', id: request.id, result: answer });
    expect(await outcome(client)).toContain(`InvalidClientResponseError: Invalid sampling result from the client: ${problem}`);
  });

  it('cannot be used after the request was answered', async () => {
    const client = await connect({ sampling: {} });
    client.onRequest = (request) => ({ jsonrpc: '2.0', id: request.id, result: { role: 'assistant', content: text('x'), model: 'm' } });
    await outcome(client);
    await expect(escaped!()).rejects.toBeInstanceOf(RequestEndedError);
    expect(sent(client)).toHaveLength(1);
  });

  it('cancels the sampling request when the client cancels the tool call', async () => {
    const client = await connect({ sampling: {} });
    client.onRequest = () => undefined; // the model never answers
    client.send({ jsonrpc: '2.0', id: 'slow', method: 'tools/call', params: { name: 'run' } });
    const sampling = await client.waitFor((m) => m.method === 'sampling/createMessage');
    client.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'slow', reason: 'stop' } });
    const cancelled = await client.waitFor((m) => m.method === 'notifications/cancelled');
    expect(cancelled.params.requestId).toBe(sampling.id);
    await client.settle();
    expect(client.received.some((r) => r.message.id === 'slow')).toBe(false);
  });
});

describe('the tool loop', () => {
  it('runs every tool_use of a turn, answers with one results message, and ends on text', async () => {
    const client = await connect({ sampling: { tools: {} } });
    let turn = 0;
    client.onRequest = (request) => {
      turn++;
      const content =
        turn === 1
          ? [
              { type: 'tool_use', id: 'p', name: 'get_weather', input: { city: 'Paris' } },
              { type: 'tool_use', id: 'a', name: 'get_weather', input: { city: 'Atlantis' } },
              { type: 'tool_use', id: 'x', name: 'get_weather', input: { town: 'Oops' } },
              { type: 'tool_use', id: 'u', name: 'launch_rockets', input: {} },
            ]
          : text('Paris is sunny.');
      return { jsonrpc: '2.0', id: request.id, result: { role: 'assistant', content, model: 'm', stopReason: turn === 1 ? 'toolUse' : 'endTurn' } };
    };
    const result = JSON.parse(await outcome(client, 'loop'));
    expect(result.iterations).toBe(2);
    expect(result.final).toEqual(text('Paris is sunny.'));
    const results = result.transcript[2];
    expect(results.role).toBe('user');
    expect(results.content).toEqual([
      { type: 'tool_result', toolUseId: 'p', content: [text('Paris: sunny')] },
      { type: 'tool_result', toolUseId: 'a', content: [text('No such city')], isError: true },
      { type: 'tool_result', toolUseId: 'x', content: [expect.objectContaining({ type: 'text', text: expect.stringContaining('Invalid arguments for tool "get_weather"') })], isError: true },
      { type: 'tool_result', toolUseId: 'u', content: [text('Unknown tool: launch_rockets')], isError: true },
    ]);
    const requests = sent(client);
    expect(requests).toHaveLength(2);
    expect(requests[0].params.tools).toEqual([{ name: 'get_weather', description: 'Weather for a city', inputSchema: expect.objectContaining({ type: 'object' }) }]);
    expect(requests[1].params.messages).toHaveLength(3);
  });

  it('sends toolChoice none on the last allowed turn', async () => {
    const client = await connect({ sampling: { tools: {} } });
    client.onRequest = (request) => ({
      jsonrpc: '2.0',
      id: request.id,
      result: { role: 'assistant', content: [{ type: 'tool_use', id: `t${request.id}`, name: 'get_weather', input: { city: 'Paris' } }], model: 'm', stopReason: 'toolUse' },
    });
    const result = JSON.parse(await outcome(client, 'loop'));
    expect(result.iterations).toBe(3);
    const choices = sent(client).map((m) => m.params.toolChoice);
    expect(choices).toEqual([undefined, undefined, { mode: 'none' }]);
  });
});

describe('ctx.roots', () => {
  it('asks once per session until the client says they changed', async () => {
    const client = await connect({ roots: { listChanged: true } });
    let version = 1;
    client.onRequest = (request) =>
      request.method === 'roots/list' ? { jsonrpc: '2.0', id: request.id, result: { roots: [{ uri: `file:///work/v${version}`, name: 'work' }] } } : undefined;
    expect(JSON.parse(await outcome(client, 'roots'))).toEqual({ first: [{ uri: 'file:///work/v1', name: 'work' }], same: true });
    expect(JSON.parse(await outcome(client, 'roots')).first[0].uri).toBe('file:///work/v1');
    expect(sent(client, 'roots/list')).toHaveLength(1);
    version = 2;
    client.send({ jsonrpc: '2.0', method: 'notifications/roots/list_changed' });
    expect(JSON.parse(await outcome(client, 'roots')).first[0].uri).toBe('file:///work/v2');
    expect(sent(client, 'roots/list')).toHaveLength(2);
  });

  it('needs the roots capability', async () => {
    const client = await connect({});
    const { result } = await client.request('tools/call', { name: 'roots' });
    expect(result).toEqual({ content: [text('The client did not declare the "roots" capability, so it cannot be asked for its roots')], isError: true });
  });
});

it('exports typed errors', () => {
  expect(new ClientCapabilityError('sampling', 'x').code).toBe('CLIENT_CAPABILITY_MISSING');
  expect(new SamplingRuleError('x').code).toBe('SAMPLING_RULE_VIOLATION');
  expect(new InvalidClientResponseError('x').code).toBe('INVALID_CLIENT_RESPONSE');
});

describe('answers that break the tool rules', () => {
  it.each([
    ['a repeated tool_use id', [{ type: 'tool_use', id: 'a', name: 'get_weather', input: { city: 'x' } }, { type: 'tool_use', id: 'a', name: 'get_weather', input: { city: 'y' } }], 'tool_use id "a" appears twice'],
    ['a tool_result from the model', [{ type: 'tool_result', toolUseId: 'a', content: [] }], 'the model answered with a tool_result'],
  ])('refuses %s before running any tool', async (_label, content, problem) => {
    const server = new McpServer({ name: 'agent', version: '1', providers: [Agent], debug: true, onError: () => undefined });
    const client = await checked(server, '2025-11-25', { sampling: { tools: {} } });
    client.onRequest = (request) => ({ jsonrpc: '2.0', id: request.id, result: { role: 'assistant', content, model: 'm', stopReason: 'toolUse' } });
    const { result } = await client.request('tools/call', { name: 'loop' });
    expect(result.isError).toBe(true);
    expect(result.content[0].text).toContain(problem);
    expect(sent(client)).toHaveLength(1);
  });
});
