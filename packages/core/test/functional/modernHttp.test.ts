import 'reflect-metadata';
import { IsBoolean, IsInt, IsOptional, IsString } from 'class-validator';
import { Context, McpHeader, McpServer, Tool } from '@typemcp/core';
import { expectValidServerMessages } from '../../../../test-support/specSchema';

class QueryInput {
  @IsString() @McpHeader('Region') region!: string;
  @IsOptional() @IsInt() @McpHeader('Shard') shard?: number;
  @IsOptional() @IsBoolean() @McpHeader('Dry-Run') dryRun?: boolean;
  @IsString() query!: string;
}

class HttpTools {
  @Tool({ description: 'Runs a query in a region' })
  execute(input: QueryInput): string {
    return `${input.region}:${input.query}`;
  }

  @Tool({ description: 'Reports progress, then answers' })
  async slow(ctx: Context): Promise<string> {
    ctx.progress(1, 2);
    await new Promise((resolve) => setTimeout(resolve, 5));
    ctx.progress(2, 2);
    return 'slow done';
  }

  @Tool({ description: 'Needs sampling' })
  async sampler(ctx: Context): Promise<string> {
    await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'x' } }], maxTokens: 5 });
    return 'sampled';
  }
}

const VERSION = '2026-07-28';
const meta = (capabilities: Record<string, unknown> = {}) => ({
  'io.modelcontextprotocol/protocolVersion': VERSION,
  'io.modelcontextprotocol/clientCapabilities': capabilities,
});

let server: McpServer;
let url: string;
const received: Array<{ message: Record<string, any>; requestMethod?: string }> = [];

beforeEach(async () => {
  server = new McpServer({ name: 'http-modern', version: '1', providers: [HttpTools] });
  ({ url } = await server.listen({ transport: 'http', port: 0, handleSignals: false }));
});

afterEach(async () => {
  await server.close();
  expectValidServerMessages(VERSION, received.splice(0));
});

/** The standard headers of a 2026-07-28 request, mirrored from its body. */
function standardHeaders(method: string, params: Record<string, any>): Record<string, string> {
  const headers: Record<string, string> = { 'mcp-protocol-version': VERSION, 'mcp-method': method };
  const name = params.name ?? params.uri;
  if (name !== undefined && ['tools/call', 'prompts/get', 'resources/read'].includes(method)) headers['mcp-name'] = name;
  return headers;
}

async function post(id: number | string | undefined, method: string, params: Record<string, any>, headers: Record<string, string | undefined> = {}) {
  const all: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...standardHeaders(method, params) };
  for (const [key, value] of Object.entries(headers)) {
    if (value === undefined) delete all[key];
    else all[key] = value;
  }
  const body = id === undefined ? { jsonrpc: '2.0', method, params } : { jsonrpc: '2.0', id, method, params };
  const response = await fetch(url, { method: 'POST', headers: all, body: JSON.stringify(body) });
  const type = response.headers.get('content-type') ?? '';
  let messages: Array<Record<string, any>> = [];
  if (type.includes('text/event-stream')) {
    const text = await response.text();
    messages = text
      .split('\n\n')
      .map((event) => event.split('\n').find((line) => line.startsWith('data: ')))
      .filter((line): line is string => line !== undefined)
      .map((line) => JSON.parse(line.slice(6)));
  } else if (type.includes('application/json')) {
    messages = [(await response.json()) as Record<string, any>];
  }
  for (const message of messages) received.push({ message, requestMethod: 'method' in message ? undefined : method });
  return { status: response.status, type, messages, last: messages[messages.length - 1] };
}

const call = (args: Record<string, unknown>, headers: Record<string, string | undefined> = {}, name = 'execute') =>
  post(7, 'tools/call', { name, arguments: args, _meta: meta() }, headers);

describe('Streamable HTTP, protocol 2026-07-28', () => {
  it('serves a request without a session, as JSON', async () => {
    const reply = await call({ region: 'us-west1', query: 'q' }, { 'mcp-param-region': 'us-west1' });
    expect(reply.status).toBe(200);
    expect(reply.type).toContain('application/json');
    expect(reply.last).toMatchObject({ id: 7, result: { resultType: 'complete', content: [{ type: 'text', text: 'us-west1:q' }] } });
  });

  it('ignores an Mcp-Session-Id header and mints none', async () => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': 'stale', ...standardHeaders('tools/list', {}) },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta() } }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('mcp-session-id')).toBeNull();
    expect(((await response.json()) as Record<string, any>).result.tools).toHaveLength(3);
  });

  it.each([
    ['no MCP-Protocol-Version header', { 'mcp-protocol-version': undefined }, /MCP-Protocol-Version header is required/],
    ['a version header that differs from _meta', { 'mcp-protocol-version': '2025-11-25' }, /MCP-Protocol-Version header value '2025-11-25'/],
    ['no Mcp-Method header', { 'mcp-method': undefined }, /Mcp-Method header is required/],
    ['an Mcp-Method header of another case', { 'mcp-method': 'TOOLS/CALL' }, /Mcp-Method header value 'TOOLS\/CALL'/],
    ['no Mcp-Name header', { 'mcp-name': undefined }, /Mcp-Name header is required/],
    ['an Mcp-Name header naming another tool', { 'mcp-name': 'other' }, /Mcp-Name header value 'other'/],
    ['no Mcp-Param header for an argument that is set', { 'mcp-param-region': undefined }, /Mcp-Param-Region header is required/],
    ['an Mcp-Param header that differs', { 'mcp-param-region': 'eu' }, /Mcp-Param-Region header value 'eu'/],
    ['invalid Base64 in an Mcp-Param header', { 'mcp-param-region': '=?base64?***?=' }, /not valid Base64/],
    ['an Mcp-Param header for an absent argument', { 'mcp-param-shard': '3' }, /Mcp-Param-Shard is set but the argument "shard" is absent/],
  ])('refuses %s with 400 and -32020, echoing the id', async (_label, headers, message) => {
    const reply = await call({ region: 'us-west1', query: 'q' }, { 'mcp-param-region': 'us-west1', ...headers });
    expect(reply.status).toBe(400);
    expect(reply.last).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32020, message: expect.stringMatching(message) } });
  });

  it('accepts Base64-encoded values, whitespace around values and numeric or boolean arguments', async () => {
    const encoded = (text: string) => `=?base64?${Buffer.from(text).toString('base64')}?=`;
    const reply = await call(
      { region: 'Zürich', query: 'q', shard: 42, dryRun: false },
      { 'mcp-param-region': encoded('Zürich'), 'mcp-param-shard': ' 42.0 ', 'mcp-param-dry-run': 'false', 'mcp-name': `  ${encoded('execute')}` },
    );
    expect(reply.status).toBe(200);
    expect(reply.last.result.content[0].text).toBe('Zürich:q');
  });

  it('lists the x-mcp-header annotations in the input schema', async () => {
    const reply = await post(1, 'tools/list', { _meta: meta() });
    const execute = reply.last.result.tools.find((t: { name: string }) => t.name === 'execute');
    expect(execute.inputSchema.properties.region).toMatchObject({ type: 'string', 'x-mcp-header': 'Region' });
    expect(execute.inputSchema.properties.shard).toMatchObject({ type: 'integer', 'x-mcp-header': 'Shard' });
  });

  it('answers with 400 for -32602, -32021 and -32022, and 404 for -32601', async () => {
    const noMeta = await post(1, 'tools/list', {});
    expect([noMeta.status, noMeta.last.error.code, noMeta.last.id]).toEqual([400, -32602, 1]);
    const noCapabilities = await post(2, 'tools/list', { _meta: { 'io.modelcontextprotocol/protocolVersion': VERSION } });
    expect([noCapabilities.status, noCapabilities.last.error.code]).toEqual([400, -32602]);
    const unsupported = await post(3, 'tools/list', { _meta: { ...meta(), 'io.modelcontextprotocol/protocolVersion': '1900-01-01' } }, { 'mcp-protocol-version': '1900-01-01' });
    expect([unsupported.status, unsupported.last.error.code]).toEqual([400, -32022]);
    expect(unsupported.last.error.data.supported[0]).toBe(VERSION);
    const missing = await post(4, 'tools/call', { name: 'sampler', _meta: meta() });
    expect([missing.status, missing.last.error]).toEqual([400, expect.objectContaining({ code: -32021, data: { requiredCapabilities: { sampling: {} } } })]);
    for (const method of ['ping', 'initialize', 'logging/setLevel', 'nothing/here']) {
      const gone = await post(5, method, { _meta: meta() });
      expect([gone.status, gone.last.error.code, gone.last.id]).toEqual([404, -32601, 5]);
    }
  });

  it('streams progress on the response of its request, then the result', async () => {
    const reply = await post(9, 'tools/call', { name: 'slow', _meta: { ...meta(), progressToken: 'tok' } });
    expect(reply.type).toContain('text/event-stream');
    expect(reply.messages.map((m) => m.method ?? `result ${m.id}`)).toEqual(['notifications/progress', 'notifications/progress', 'result 9']);
    expect(reply.last.result.content[0].text).toBe('slow done');
  });

  it('answers a 2026-07-28 notification with 202', async () => {
    const reply = await post(undefined, 'notifications/cancelled', { requestId: 1, _meta: meta() });
    expect(reply.status).toBe(202);
  });

  it('keeps a subscriptions/listen stream open: acknowledgement first, then the changes asked for', async () => {
    const controller = new AbortController();
    const response = await fetch(url, {
      method: 'POST',
      signal: controller.signal,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...standardHeaders('subscriptions/listen', {}) },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'listen-1', method: 'subscriptions/listen', params: { _meta: meta(), notifications: { toolsListChanged: true, promptsListChanged: true } } }),
    });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    expect(response.headers.get('x-accel-buffering')).toBe('no');
    const reader = response.body!.getReader();
    const frames: Array<Record<string, any>> = [];
    let buffer = '';
    const next = async () => {
      while (!buffer.includes('\n\n')) {
        const { value, done } = await reader.read();
        if (done) throw new Error('stream ended');
        buffer += Buffer.from(value).toString();
      }
      const [event, rest] = [buffer.slice(0, buffer.indexOf('\n\n')), buffer.slice(buffer.indexOf('\n\n') + 2)];
      buffer = rest;
      const frame = JSON.parse(event.split('\n').find((l) => l.startsWith('data: '))!.slice(6));
      frames.push(frame);
      return frame;
    };
    const ack = await next();
    // Prompts are not served here, so only the tools filter is honoured.
    expect(ack).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 'listen-1' }, notifications: { toolsListChanged: true } },
    });
    server.tools.disable('sampler');
    expect(await next()).toEqual({ jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 'listen-1' } } });
    for (const message of frames) received.push({ message });
    controller.abort();
  });

  it('writes SSE comments on a quiet listen stream, at keepAliveMs', async () => {
    const quiet = new McpServer({ name: 'quiet', version: '1', providers: [HttpTools] });
    const address = await quiet.listen({ transport: 'http', port: 0, handleSignals: false, keepAliveMs: 20 });
    const controller = new AbortController();
    try {
      const response = await fetch(address.url, {
        method: 'POST',
        signal: controller.signal,
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...standardHeaders('subscriptions/listen', {}) },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'subscriptions/listen', params: { _meta: meta(), notifications: { toolsListChanged: true } } }),
      });
      const reader = response.body!.getReader();
      let text = '';
      while (!text.includes(':\n\n')) text += Buffer.from((await reader.read()).value!).toString();
      expect(text.indexOf('notifications/subscriptions/acknowledged')).toBeLessThan(text.indexOf(':\n\n'));
    } finally {
      controller.abort();
      await quiet.close();
    }
    expect(() => new McpServer({ name: 'x', version: '1' }).httpHandler({ keepAliveMs: 0 })).toThrow(/keepAliveMs must be a positive integer/);
  });

  it('binds a requestState to the principal the application names', async () => {
    class Asking {
      @Tool({ description: 'Asks a question' })
      async ask(ctx: Context): Promise<string> {
        const answer = await ctx.elicit('Name?', { requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
        return answer.action;
      }
    }
    const bound = new McpServer({ name: 'bound', version: '1', providers: [Asking] });
    const address = await bound.listen({ transport: 'http', port: 0, handleSignals: false, principal: (req) => req.headers['x-user'] as string | undefined });
    const callAs = async (user: string, extra: Record<string, unknown> = {}) => {
      const response = await fetch(address.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-user': user, ...standardHeaders('tools/call', { name: 'ask' }) },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ask', ...extra, _meta: meta({ elicitation: {} }) } }),
      });
      return (await response.json()) as Record<string, any>;
    };
    try {
      const first = await callAs('alice');
      expect(first.result.resultType).toBe('input_required');
      const retry = { inputResponses: { 'elicitation-1': { action: 'decline' } }, requestState: first.result.requestState };
      const stolen = await callAs('mallory', retry);
      expect(stolen.error).toMatchObject({ code: -32602, message: expect.stringMatching(/issued to another principal/) });
      expect((await callAs('alice', retry)).result.content[0].text).toBe('decline');
    } finally {
      await bound.close();
    }
  });

  it('still serves handshake sessions on the same endpoint', async () => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'old', version: '1' } } }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('mcp-session-id')).toMatch(/\w/);
    expect(((await response.json()) as Record<string, any>).result.protocolVersion).toBe('2025-11-25');
  });
});
