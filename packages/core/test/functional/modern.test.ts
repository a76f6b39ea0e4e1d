import 'reflect-metadata';
import { IsString } from 'class-validator';
import { Context, McpServer, Prompt, Resource, SUPPORTED_VERSIONS, Tool } from '@typemcp/core';
import { expectValidServerMessages } from '../../../../test-support/specSchema';
import { RawClient } from './rawClient';

const META_VERSION = 'io.modelcontextprotocol/protocolVersion';
const META_CAPS = 'io.modelcontextprotocol/clientCapabilities';
const META_LEVEL = 'io.modelcontextprotocol/logLevel';
const SERVER_INFO = 'io.modelcontextprotocol/serverInfo';
const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

/** The `_meta` of a 2026-07-28 request. */
const meta = (capabilities: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
  [META_VERSION]: '2026-07-28',
  [META_CAPS]: capabilities,
  'io.modelcontextprotocol/clientInfo': { name: 'modern-client', version: '1.0.0' },
  ...extra,
});

class NameForm {
  @IsString() name!: string;
}

class ColorForm {
  @IsString() color!: string;
}

let runs = 0;

class ModernTools {
  @Tool({ description: 'Greets whoever answers' })
  async greet(ctx: Context): Promise<string> {
    runs++;
    const answer = await ctx.elicit('What is your name?', NameForm, { key: 'user_name' });
    return answer.action === 'accept' ? `Hello, ${answer.content.name}!` : 'No name given';
  }

  @Tool({ description: 'Two questions, one after the other' })
  async twoSteps(ctx: Context): Promise<string> {
    const name = await ctx.elicit('Step 1: name?', NameForm);
    const color = await ctx.elicit('Step 2: color?', ColorForm);
    return `${name.action === 'accept' ? name.content.name : '-'} likes ${color.action === 'accept' ? color.content.color : '-'}`;
  }

  @Tool({ description: 'Three questions at once' })
  async together(ctx: Context): Promise<string> {
    const [name, sampled, roots] = await Promise.all([
      ctx.elicit('Name?', NameForm, { key: 'user_name' }),
      ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'Greet' } }], maxTokens: 20 }, { key: 'greeting' }),
      ctx.roots({ key: 'client_roots' }),
    ]);
    const content = Array.isArray(sampled.content) ? sampled.content[0] : sampled.content;
    const text = content?.type === 'text' ? content.text : '';
    return `${name.action === 'accept' ? name.content.name : '-'} / ${text} / ${roots.map((r) => r.uri).join(',')}`;
  }

  @Tool({ description: 'Samples without checking the capability' })
  async needsSampling(ctx: Context): Promise<string> {
    await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'Hi' } }], maxTokens: 5 });
    return 'sampled';
  }

  @Tool({ description: 'Logs and reports progress' })
  chatty(ctx: Context): string {
    ctx.log.info('working');
    ctx.log.debug('details');
    ctx.progress(1, 2);
    return 'done';
  }

  @Tool({ description: 'A plain tool' })
  plain(): string {
    return 'plain';
  }

  @Resource({ uri: 'memo://one', mimeType: 'text/plain' })
  one(): string {
    return 'one';
  }

  @Resource({ uri: 'memo://cached', mimeType: 'text/plain', cache: { ttlMs: 30_000, cacheScope: 'public' } })
  cached(): string {
    return 'cached';
  }

  @Prompt({ description: 'Asks for context first' })
  async contextual(ctx: Context): Promise<string> {
    const answer = await ctx.elicit('Which context?', NameForm, { key: 'user_context' });
    return `Context: ${answer.action === 'accept' ? answer.content.name : 'none'}`;
  }
}

const servers: McpServer[] = [];
const clients: RawClient[] = [];
async function connect(options: Partial<ConstructorParameters<typeof McpServer>[0]> = {}): Promise<RawClient> {
  const server = new McpServer({ name: 'modern', version: '2.0.0', instructions: 'Be nice.', providers: [ModernTools], ...options });
  servers.push(server);
  const client = await RawClient.connect(server);
  clients.push(client);
  return client;
}

afterEach(async () => {
  for (const client of clients.splice(0)) {
    expectValidServerMessages('2026-07-28', client.received);
    await client.close();
  }
  for (const server of servers.splice(0)) await server.close();
  runs = 0;
});

describe('2026-07-28 requests (no handshake)', () => {
  it('answers server/discover with the versions, capabilities, instructions and identity', async () => {
    const client = await connect();
    const response = await client.request('server/discover', { _meta: meta() });
    expect(response.result).toEqual({
      resultType: 'complete',
      supportedVersions: SUPPORTED_VERSIONS,
      capabilities: {
        logging: {},
        tools: { listChanged: true },
        prompts: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
      },
      instructions: 'Be nice.',
      ttlMs: 0,
      cacheScope: 'public',
      _meta: { [SERVER_INFO]: { name: 'modern', version: '2.0.0' } },
    });
    expect(SUPPORTED_VERSIONS[0]).toBe('2026-07-28');
  });

  it('serves a tool call without initialize, with resultType and the server identity', async () => {
    const client = await connect();
    const response = await client.request('tools/call', { name: 'plain', arguments: {}, _meta: meta() });
    expect(response.result).toEqual({
      resultType: 'complete',
      content: [{ type: 'text', text: 'plain' }],
      _meta: { [SERVER_INFO]: { name: 'modern', version: '2.0.0' } },
    });
  });
});

describe('2026-07-28 request _meta', () => {
  it.each([
    ['no _meta clientCapabilities', { [META_VERSION]: '2026-07-28' }, -32602, /clientCapabilities/],
    ['a version that is not a string', { [META_VERSION]: 20260728, [META_CAPS]: {} }, -32602, /protocolVersion/],
    ['an unknown log level', { ...meta(), [META_LEVEL]: 'loud' }, -32602, /logLevel/],
    ['a clientInfo without a name', { ...meta(), 'io.modelcontextprotocol/clientInfo': { version: '1' } }, -32602, /clientInfo/],
  ])('refuses a request with %s (-32602, id echoed)', async (_label, requestMeta, code, message) => {
    const client = await connect();
    const response = await client.request('tools/list', { _meta: requestMeta }, 'req-7');
    expect(response.id).toBe('req-7');
    expect(response.error.code).toBe(code);
    expect(response.error.message).toMatch(message);
  });

  it('serves a request without clientInfo', async () => {
    const client = await connect();
    const response = await client.request('tools/list', { _meta: { [META_VERSION]: '2026-07-28', [META_CAPS]: {} } });
    expect(response.result.tools.map((t: { name: string }) => t.name)).toContain('plain');
  });

  it('answers an unsupported version with -32022 listing the supported ones', async () => {
    const client = await connect();
    const response = await client.request('tools/list', { _meta: { ...meta(), [META_VERSION]: '1900-01-01' } }, 41);
    expect(response).toEqual({
      jsonrpc: '2.0',
      id: 41,
      error: { code: -32022, message: expect.stringMatching(/Unsupported protocol version/), data: { supported: SUPPORTED_VERSIONS, requested: '1900-01-01' } },
    });
  });

  it.each(['initialize', 'ping', 'logging/setLevel', 'resources/subscribe', 'resources/unsubscribe', 'no/such/method'])(
    'answers %s with -32601: it is not part of 2026-07-28',
    async (method) => {
      const client = await connect();
      const response = await client.request(method, { _meta: meta(), uri: 'memo://one', level: 'info' }, 9);
      expect(response.id).toBe(9);
      expect(response.error.code).toBe(-32601);
    },
  );

  it('adds caching hints to lists and reads, configurable per method', async () => {
    const client = await connect({ cacheHints: { 'tools/list': { ttlMs: 60_000 } } });
    const tools = await client.request('tools/list', { _meta: meta() });
    expect(tools.result).toMatchObject({ resultType: 'complete', ttlMs: 60_000, cacheScope: 'public' });
    const read = await client.request('resources/read', { uri: 'memo://one', _meta: meta() });
    expect(read.result).toMatchObject({ resultType: 'complete', ttlMs: 0, cacheScope: 'private', contents: [{ uri: 'memo://one', text: 'one' }] });
    for (const method of ['prompts/list', 'resources/list', 'resources/templates/list']) {
      const listed = await client.request(method, { _meta: meta() });
      expect(listed.result).toMatchObject({ ttlMs: 0, cacheScope: 'public' });
    }
    const call = await client.request('tools/call', { name: 'plain', _meta: meta() });
    expect(call.result.ttlMs).toBeUndefined();
  });

  it('takes a resource\'s own caching hint over the server\'s, in 2026-07-28 reads only', async () => {
    const client = await connect({ cacheHints: { 'resources/read': { ttlMs: 5 } } });
    const modern = await client.request('resources/read', { uri: 'memo://cached', _meta: meta() });
    expect(modern.result).toMatchObject({ ttlMs: 30_000, cacheScope: 'public' });
    const other = await client.request('resources/read', { uri: 'memo://one', _meta: meta() });
    expect(other.result).toMatchObject({ ttlMs: 5, cacheScope: 'private' });
    const legacy = await RawClient.initialized(servers[0]);
    const old = await legacy.request('resources/read', { uri: 'memo://cached' });
    expect(old.result).toEqual({ contents: [{ uri: 'memo://cached', mimeType: 'text/plain', text: 'cached' }] });
    await legacy.close();
  });

  it('refuses invalid cache hints at construction', () => {
    class BadCache {
      @Resource({ uri: 'memo://bad', cache: { ttlMs: 1.5 } })
      bad(): string {
        return '';
      }
    }
    expect(() => new McpServer({ name: 'x', version: '1', providers: [BadCache] })).toThrow(/BadCache\.bad: cache needs an integer ttlMs/);
    expect(() => new McpServer({ name: 'x', version: '1', cacheHints: { 'tools/list': { ttlMs: -1 } } })).toThrow(/cacheHints\["tools\/list"\]/);
    expect(() => new McpServer({ name: 'x', version: '1', requestState: { secret: 'short' } })).toThrow(/requestState\.secret/);
  });

  it('answers an unknown resource with -32602 and the uri (not -32002)', async () => {
    const client = await connect();
    const response = await client.request('resources/read', { uri: 'memo://missing', _meta: meta() });
    expect(response.error).toEqual({ code: -32602, message: 'Resource not found: memo://missing', data: { uri: 'memo://missing' } });
  });

  it('sends logs only when the request set a log level, at or above it', async () => {
    const client = await connect();
    await client.request('tools/call', { name: 'chatty', _meta: { ...meta(), progressToken: 'p1' } }, 'quiet');
    await client.request('tools/call', { name: 'chatty', _meta: { ...meta({}, { [META_LEVEL]: 'info' }), progressToken: 'p2' } }, 'loud');
    const logs = client.received.map((r) => r.message).filter((m) => m.method === 'notifications/message');
    expect(logs.map((m) => m.params)).toEqual([{ level: 'info', data: 'working' }]);
    const progress = client.received.map((r) => r.message).filter((m) => m.method === 'notifications/progress');
    expect(progress.map((m) => m.params.progressToken)).toEqual(['p1', 'p2']);
  });

  it('answers a capability the request did not declare with -32021 naming it', async () => {
    const client = await connect();
    const response = await client.request('tools/call', { name: 'needsSampling', _meta: meta({ elicitation: {} }) }, 401);
    expect(response).toEqual({
      jsonrpc: '2.0',
      id: 401,
      error: { code: -32021, message: expect.stringMatching(/sampling/), data: { requiredCapabilities: { sampling: {} } } },
    });
  });

  it('serves both eras on one connection: a handshake session beside per-request _meta', async () => {
    const client = await connect();
    const modern = await client.request('tools/call', { name: 'plain', _meta: meta() });
    expect(modern.result.resultType).toBe('complete');
    const early = await client.request('tools/list', {});
    expect(early.error.code).toBe(-32600); // the handshake era still needs initialize
    const discoverWithoutMeta = await client.request('server/discover', {});
    expect(discoverWithoutMeta.error.code).toBe(-32601);
  });
});

describe('multi round-trip requests (input_required)', () => {
  const elicitAccept = (content: Record<string, unknown>) => ({ action: 'accept', content });

  it('asks with input_required, then completes the retry from inputResponses', async () => {
    const client = await connect();
    const first = await client.request('tools/call', { name: 'greet', arguments: {}, _meta: meta({ elicitation: {} }) });
    expect(first.result).toMatchObject({
      resultType: 'input_required',
      inputRequests: {
        user_name: {
          method: 'elicitation/create',
          params: { mode: 'form', message: 'What is your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
        },
      },
      requestState: expect.any(String),
    });
    expect(first.result.ttlMs).toBeUndefined();
    const second = await client.request('tools/call', {
      name: 'greet',
      arguments: {},
      inputResponses: { user_name: elicitAccept({ name: 'Alice' }), unrelated: { anything: true } },
      requestState: first.result.requestState,
      _meta: meta({ elicitation: {} }),
    });
    expect(second.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'Hello, Alice!' }] });
    expect(runs).toBe(2);
  });

  it('asks again when the retry lacks the answer', async () => {
    const client = await connect();
    const first = await client.request('tools/call', { name: 'greet', _meta: meta({ elicitation: {} }) });
    const retry = await client.request('tools/call', {
      name: 'greet',
      inputResponses: { wrong_key: elicitAccept({ name: 'Bob' }) },
      requestState: first.result.requestState,
      _meta: meta({ elicitation: {} }),
    });
    expect(retry.result.resultType).toBe('input_required');
    expect(Object.keys(retry.result.inputRequests)).toEqual(['user_name']);
    expect(retry.result.requestState).not.toBe(first.result.requestState);
  });

  it('carries earlier answers in a requestState that changes every round', async () => {
    const client = await connect();
    const caps = meta({ elicitation: {} });
    const r1 = await client.request('tools/call', { name: 'twoSteps', _meta: caps });
    expect(Object.keys(r1.result.inputRequests)).toEqual(['elicitation-1']);
    const r2 = await client.request('tools/call', {
      name: 'twoSteps',
      inputResponses: { 'elicitation-1': elicitAccept({ name: 'Ann' }) },
      requestState: r1.result.requestState,
      _meta: caps,
    });
    expect(r2.result.resultType).toBe('input_required');
    expect(Object.keys(r2.result.inputRequests)).toEqual(['elicitation-2']);
    expect(r2.result.inputRequests['elicitation-2'].params.message).toBe('Step 2: color?');
    expect(r2.result.requestState).not.toBe(r1.result.requestState);
    // The retry answers only step 2: step 1's answer rides in the state.
    const r3 = await client.request('tools/call', {
      name: 'twoSteps',
      inputResponses: { 'elicitation-2': elicitAccept({ color: 'green' }) },
      requestState: r2.result.requestState,
      _meta: caps,
    });
    expect(r3.result.content).toEqual([{ type: 'text', text: 'Ann likes green' }]);
  });

  it('collects the questions asked together into one round', async () => {
    const client = await connect();
    const caps = meta({ elicitation: {}, sampling: {}, roots: {} });
    const first = await client.request('tools/call', { name: 'together', _meta: caps });
    expect(Object.keys(first.result.inputRequests).sort()).toEqual(['client_roots', 'greeting', 'user_name']);
    expect(first.result.inputRequests.client_roots).toEqual({ method: 'roots/list' });
    expect(first.result.inputRequests.greeting.method).toBe('sampling/createMessage');
    const done = await client.request('tools/call', {
      name: 'together',
      inputResponses: {
        user_name: elicitAccept({ name: 'Eve' }),
        greeting: { role: 'assistant', content: { type: 'text', text: 'Hi!' }, model: 'm', stopReason: 'endTurn' },
        client_roots: { roots: [{ uri: 'file:///work' }] },
      },
      requestState: first.result.requestState,
      _meta: caps,
    });
    expect(done.result.content).toEqual([{ type: 'text', text: 'Eve / Hi! / file:///work' }]);
  });

  it('works for prompts/get', async () => {
    const client = await connect();
    const first = await client.request('prompts/get', { name: 'contextual', _meta: meta({ elicitation: {} }) });
    expect(Object.keys(first.result.inputRequests)).toEqual(['user_context']);
    const done = await client.request('prompts/get', {
      name: 'contextual',
      inputResponses: { user_context: elicitAccept({ name: 'billing' }) },
      requestState: first.result.requestState,
      _meta: meta({ elicitation: {} }),
    });
    expect(done.result).toMatchObject({ resultType: 'complete', messages: [{ role: 'user', content: { type: 'text', text: 'Context: billing' } }] });
  });

  it('refuses a tampered, foreign or malformed requestState with -32602', async () => {
    const client = await connect();
    const caps = meta({ elicitation: {} });
    const first = await client.request('tools/call', { name: 'greet', _meta: caps });
    const state: string = first.result.requestState;
    const [body, signature] = state.split('.');
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString());
    payload.a = { user_name: elicitAccept({ name: 'Mallory' }) };
    const forged = `${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${signature}`;
    for (const requestState of [forged, `${state}x`, 'garbage', 42]) {
      const response = await client.request('tools/call', { name: 'greet', requestState, _meta: caps });
      expect(response.error).toMatchObject({ code: -32602, message: expect.stringMatching(/Invalid requestState/) });
    }
    // A state is bound to its request: another tool's call cannot use it.
    const elsewhere = await client.request('tools/call', { name: 'twoSteps', requestState: state, _meta: caps });
    expect(elsewhere.error.message).toMatch(/issued for another request/);
    const otherArguments = await client.request('tools/call', { name: 'greet', arguments: { extra: 1 }, requestState: state, _meta: caps });
    expect(otherArguments.error.message).toMatch(/issued for another request/);
  });

  it('refuses a state from another server secret, and an expired one', async () => {
    const issuer = await connect({ requestState: { secret: 'first-secret-of-sixteen', ttlMs: 1 } });
    const first = await issuer.request('tools/call', { name: 'greet', _meta: meta({ elicitation: {} }) });
    const other = await connect({ requestState: { secret: 'another-secret-of-sixteen' } });
    const foreign = await other.request('tools/call', { name: 'greet', requestState: first.result.requestState, _meta: meta({ elicitation: {} }) });
    expect(foreign.error.message).toMatch(/integrity check failed/);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const late = await issuer.request('tools/call', { name: 'greet', requestState: first.result.requestState, _meta: meta({ elicitation: {} }) });
    expect(late.error.message).toMatch(/expired/);
  });

  it('accepts a state on any server that shares the secret', async () => {
    const secret = 'shared-secret-between-instances';
    const a = await connect({ requestState: { secret } });
    const b = await connect({ requestState: { secret } });
    const first = await a.request('tools/call', { name: 'greet', _meta: meta({ elicitation: {} }) });
    const done = await b.request('tools/call', {
      name: 'greet',
      inputResponses: { user_name: elicitAccept({ name: 'Zoe' }) },
      requestState: first.result.requestState,
      _meta: meta({ elicitation: {} }),
    });
    expect(done.result.content).toEqual([{ type: 'text', text: 'Hello, Zoe!' }]);
  });

  it('refuses inputResponses that are not objects of results', async () => {
    const client = await connect();
    for (const inputResponses of ['nope', [1], { user_name: 'Alice' }]) {
      const response = await client.request('tools/call', { name: 'greet', inputResponses, _meta: meta({ elicitation: {} }) });
      expect(response.error.code).toBe(-32602);
    }
  });

  it('never answers tools/list or prompts/list with input_required', async () => {
    const client = await connect();
    for (const method of ['tools/list', 'prompts/list', 'resources/list']) {
      const response = await client.request(method, { _meta: meta({ elicitation: {} }) });
      expect(response.result.resultType).toBe('complete');
    }
  });
});

describe('subscriptions/listen', () => {
  it('acknowledges what it honours, then streams the changes asked for, tagged with the subscription id', async () => {
    const server = new McpServer({ name: 'listen', version: '1', providers: [ModernTools] });
    servers.push(server);
    const client = await RawClient.connect(server);
    clients.push(client);
    client.send({
      jsonrpc: '2.0',
      id: 'sub-1',
      method: 'subscriptions/listen',
      params: { _meta: meta(), notifications: { toolsListChanged: true, resourceSubscriptions: ['memo://one'], unknownKind: true } },
    });
    const ack = await client.waitFor((m) => m.method === 'notifications/subscriptions/acknowledged');
    expect(ack.params).toEqual({ _meta: { [SUBSCRIPTION_ID]: 'sub-1' }, notifications: { toolsListChanged: true, resourceSubscriptions: ['memo://one'] } });
    server.prompts.disable('contextual'); // not asked for
    server.tools.disable('plain');
    server.resources.notifyUpdated('memo://one');
    server.resources.notifyUpdated('memo://other'); // not asked for
    await client.waitFor((m) => m.method === 'notifications/resources/updated');
    await client.waitFor((m) => m.method === 'notifications/tools/list_changed');
    const streamed = client.received.map((r) => r.message).filter((m) => m.method && m.method !== 'notifications/subscriptions/acknowledged');
    expect(streamed).toEqual([
      { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'memo://one', _meta: { [SUBSCRIPTION_ID]: 'sub-1' } } },
      { jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: { [SUBSCRIPTION_ID]: 'sub-1' } } },
    ]);
    // Closing the server ends the subscription gracefully, with a result.
    await server.close();
    const end = await client.waitFor((m) => m.id === 'sub-1');
    expect(end.result).toEqual({ resultType: 'complete', _meta: { [SUBSCRIPTION_ID]: 'sub-1', [SERVER_INFO]: { name: 'listen', version: '1' } } });
  });

  it('ends without an answer when the client cancels it', async () => {
    const server = new McpServer({ name: 'listen', version: '1', providers: [ModernTools] });
    servers.push(server);
    const client = await RawClient.connect(server);
    clients.push(client);
    client.send({ jsonrpc: '2.0', id: 5, method: 'subscriptions/listen', params: { _meta: meta(), notifications: { toolsListChanged: true } } });
    await client.waitFor((m) => m.method === 'notifications/subscriptions/acknowledged');
    client.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 5 } });
    await new Promise((resolve) => setTimeout(resolve, 10));
    server.tools.disable('plain');
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(client.received.map((r) => r.message).filter((m) => m.method === 'notifications/tools/list_changed' || m.id === 5)).toEqual([]);
  });

  it('refuses a malformed filter', async () => {
    const client = await connect();
    const response = await client.request('subscriptions/listen', { _meta: meta(), notifications: { resourceSubscriptions: 'memo://one' } });
    expect(response.error.code).toBe(-32602);
  });
});
