import 'reflect-metadata';
import { IsString } from 'class-validator';
import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { PassThrough } from 'node:stream';
import { Context, McpError, McpServer, metadataStore, Prompt, Resource, StdioTransport, Tool, ToolError } from '@typemcp/core';
import type { McpServerOptions } from '@typemcp/core';
import { createTestClient } from '@typemcp/testing';
import { openTelemetry } from '@typemcp/opentelemetry';
import { CLIENT_SPAN_ID, CLIENT_TRACE_ID, Telemetry, TRACEPARENT, useAsyncContext } from './telemetry';

useAsyncContext();

let telemetry: Telemetry;
/** What author code saw while it ran. */
let seen: { baggage?: string; activeSpanId?: string };

function declareProviders() {
  class CityInput {
    @IsString() city!: string;
  }
  class ForecastArgs {
    @IsString() city!: string;
  }

  class Weather {
    @Tool({ description: 'Current weather in a city' })
    get_weather(input: CityInput): string {
      seen.baggage = propagation.getBaggage(context.active())?.getEntry('userId')?.value;
      seen.activeSpanId = trace.getActiveSpan()?.spanContext().spanId;
      return `Sunny in ${input.city}`;
    }

    @Tool({ description: 'Looks the city up, in a span of its own' })
    async lookup(input: CityInput): Promise<string> {
      await new Promise((resolve) => setTimeout(resolve, 1));
      return telemetry.tracerProvider.getTracer('author').startActiveSpan('geocode', async (span) => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        span.end();
        return `${input.city}: 38.7N 9.1W`;
      });
    }

    @Tool({ description: 'Fails unexpectedly' })
    broken(): string {
      throw new Error('connection refused by db.internal');
    }

    @Tool({ description: 'Has no forecast for the moon' })
    moon(): string {
      throw new ToolError('No forecast for the moon');
    }

    @Tool({ description: 'Over quota' })
    quota(): string {
      throw new McpError(-32010, 'Quota exceeded');
    }

    @Resource({ uri: 'weather://stations', mimeType: 'application/json' })
    stations() {
      return { count: 3 };
    }

    @Prompt({ description: 'Asks for a forecast' })
    forecast(args: ForecastArgs): string {
      return `Give the forecast for ${args.city}`;
    }
  }

  class Confirm {
    @Tool({ description: 'Asks the user first' })
    async confirm(ctx: Context): Promise<string> {
      const answer = await ctx.elicit('Proceed?', { requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } });
      return `answered ${answer.action}`;
    }
  }
  return { Weather, Confirm };
}

let providers: ReturnType<typeof declareProviders>;
beforeEach(() => {
  metadataStore.clear();
  providers = declareProviders();
  telemetry = new Telemetry();
  seen = {};
});
afterEach(() => telemetry.shutdown());

const reported: unknown[] = [];
function server(options: Partial<McpServerOptions> = {}): McpServer {
  reported.length = 0;
  return new McpServer({ name: 'weather', version: '1.0.0', providers: [providers.Weather], onError: (_what, error) => reported.push(error), ...options }).plugin(
    openTelemetry,
    telemetry.options,
  );
}

const hexId = /^[0-9a-f]{16}$/;
const uuid = /^[0-9a-f-]{36}$/;

describe('spans at 2025-11-25 (a session)', () => {
  it('names a tools/call span after the tool and records the conventions’ attributes', async () => {
    const client = await createTestClient(server());
    const result = await client.callTool('get_weather', { city: 'Lisbon' });
    expect(result.content).toEqual([{ type: 'text', text: 'Sunny in Lisbon' }]);
    await client.close();

    const span = telemetry.span('tools/call get_weather');
    expect(span.kind).toBe(SpanKind.SERVER);
    expect(span.instrumentationScope).toMatchObject({ name: '@typemcp/opentelemetry', version: '0.1.0' });
    expect(span.attributes).toEqual({
      'mcp.method.name': 'tools/call',
      'mcp.protocol.version': '2025-11-25',
      'mcp.session.id': expect.stringMatching(uuid),
      'jsonrpc.request.id': expect.stringMatching(/^\d+$/),
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'get_weather',
    });
    expect(span.status).toEqual({ code: SpanStatusCode.UNSET });
    expect(span.events).toEqual([]);
    // The handler ran inside the span.
    expect(seen.activeSpanId).toBe(span.spanContext().spanId);
  });

  it('traces tools/list, resources/read and prompts/get, each with its target', async () => {
    const client = await createTestClient(server());
    await client.listTools();
    await client.readResource('weather://stations');
    await client.getPrompt('forecast', { city: 'Porto' });
    await client.close();

    const session = telemetry.span('tools/list').attributes['mcp.session.id'];
    expect(telemetry.span('tools/list').attributes).toEqual({
      'mcp.method.name': 'tools/list',
      'mcp.protocol.version': '2025-11-25',
      'mcp.session.id': session,
      'jsonrpc.request.id': expect.any(String),
    });
    // The resource uri is an attribute, not part of the name (its cardinality is unbounded).
    expect(telemetry.span('resources/read').attributes).toEqual({
      'mcp.method.name': 'resources/read',
      'mcp.protocol.version': '2025-11-25',
      'mcp.session.id': session,
      'jsonrpc.request.id': expect.any(String),
      'mcp.resource.uri': 'weather://stations',
    });
    expect(telemetry.span('prompts/get forecast').attributes).toEqual({
      'mcp.method.name': 'prompts/get',
      'mcp.protocol.version': '2025-11-25',
      'mcp.session.id': session,
      'jsonrpc.request.id': expect.any(String),
      'gen_ai.prompt.name': 'forecast',
    });
    // One session: one id on every span; each request its own id (initialize's too).
    const ids = telemetry.spans().map((s) => s.attributes['jsonrpc.request.id']);
    expect(telemetry.spans().map((s) => s.name)).toEqual(['initialize', 'tools/list', 'resources/read', 'prompts/get forecast']);
    expect(new Set(ids).size).toBe(4);
    expect(telemetry.spans().every((s) => s.kind === SpanKind.SERVER && s.status.code === SpanStatusCode.UNSET)).toBe(true);
  });

  it('never records argument values or results', async () => {
    const client = await createTestClient(server());
    await client.callTool('get_weather', { city: 'Lisbon' });
    await client.getPrompt('forecast', { city: 'Porto' });
    await client.callTool('broken');
    await client.close();
    const recorded = JSON.stringify(telemetry.spans().map((s) => [s.name, s.attributes, s.events, s.status]));
    for (const secret of ['Lisbon', 'Sunny', 'Porto', 'Give the forecast', 'db.internal']) expect(recorded).not.toContain(secret);
  });

  it('marks a tool result with isError as tool_error, whether the tool threw ToolError or failed unexpectedly', async () => {
    const client = await createTestClient(server());
    expect((await client.callTool('moon')).isError).toBe(true);
    expect((await client.callTool('broken')).isError).toBe(true);
    await client.close();

    for (const name of ['tools/call moon', 'tools/call broken']) {
      const span = telemetry.span(name);
      expect(span.attributes['error.type']).toBe('tool_error');
      expect(span.attributes['rpc.response.status_code']).toBeUndefined();
      // No description: the result's text is for the model.
      expect(span.status).toEqual({ code: SpanStatusCode.ERROR });
      expect(span.events).toEqual([]);
    }
    // The unexpected one went to onError, as without the plugin.
    expect(reported).toEqual([expect.objectContaining({ message: 'connection refused by db.internal' })]);
  });

  it('lets onError add the unexpected exception to the request span, which is active there', async () => {
    const client = await createTestClient(server({ onError: (_what, error) => trace.getActiveSpan()?.recordException(error as Error) }));
    await client.callTool('broken');
    await client.close();
    const span = telemetry.span('tools/call broken');
    expect(span.events.map((e) => [e.name, e.attributes?.['exception.message']])).toEqual([['exception', 'connection refused by db.internal']]);
  });

  it('records a JSON-RPC error: error.type and rpc.response.status_code are its code, the exception is recorded', async () => {
    const client = await createTestClient(server());
    await expect(client.callTool('quota')).rejects.toMatchObject({ code: -32010 });
    await client.close();

    const span = telemetry.span('tools/call quota');
    expect(span.attributes).toMatchObject({ 'error.type': '-32010', 'rpc.response.status_code': '-32010', 'gen_ai.tool.name': 'quota' });
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: 'Quota exceeded' });
    expect(span.events).toHaveLength(1);
    // The SDK names an exception with a `code` by that code.
    expect(span.events[0]).toMatchObject({ name: 'exception', attributes: { 'exception.type': '-32010', 'exception.message': 'Quota exceeded' } });
  });

  it('answers an unknown tool with -32602, which is the client\'s mistake: no span error, and the client-chosen name out of the span name', async () => {
    const client = await createTestClient(server());
    await expect(client.callTool('no_such_tool')).rejects.toMatchObject({ code: -32602 });
    await client.close();

    const span = telemetry.span('tools/call');
    expect(span.attributes).toMatchObject({ 'gen_ai.tool.name': 'no_such_tool', 'error.type': '-32602', 'rpc.response.status_code': '-32602' });
    expect(span.status).toEqual({ code: SpanStatusCode.UNSET });
    expect(span.events).toEqual([]);
  });

  it('answers an unknown method with -32601: a span named _OTHER (the name is the client\'s), with no span error', async () => {
    const client = await createTestClient(server());
    await expect(client.request('no/such/method')).rejects.toMatchObject({ code: -32601 });
    await client.close();

    const span = telemetry.span('_OTHER');
    expect(span.attributes).toMatchObject({ 'mcp.method.name': '_OTHER', 'error.type': '-32601', 'rpc.response.status_code': '-32601' });
    expect(JSON.stringify(span.attributes)).not.toContain('no/such/method');
    expect(span.status).toEqual({ code: SpanStatusCode.UNSET });
    expect(span.events).toEqual([]);
  });

  it('records the network transport: pipe over stdio, none in memory (tcp over HTTP: http.test.ts)', async () => {
    const client = await createTestClient(server());
    await client.listTools();
    await client.close();
    expect(telemetry.span('tools/list').attributes['network.transport']).toBeUndefined();

    const s = server();
    const input = new PassThrough();
    const output = new PassThrough();
    const lines: string[] = [];
    output.setEncoding('utf8').on('data', (chunk: string) => lines.push(...chunk.split('\n').filter(Boolean)));
    await s.connect(new StdioTransport({ input, output }));
    input.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } })}\n`);
    input.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    input.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' })}\n`);
    const deadline = Date.now() + 5000;
    while (lines.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
    await s.close();
    const overStdio = telemetry.spans().filter((span) => span.name === 'tools/list' && span.attributes['network.transport'] !== undefined);
    expect(overStdio.map((span) => span.attributes['network.transport'])).toEqual(['pipe']);
    expect(overStdio[0].attributes['client.address']).toBeUndefined();
  });

  it('records an unexpected error by the -32603 it was answered with, its class in the exception', async () => {
    const s = server().plugin({
      name: 'fragile',
      register: (host) =>
        host.route('fragile/run', () => {
          throw new RangeError('index 7 out of range');
        }),
    });
    const client = await createTestClient(s);
    await expect(client.request('fragile/run')).rejects.toMatchObject({ code: -32603 });
    await client.close();
    await s.close();

    const span = telemetry.span('fragile/run');
    expect(span.attributes).toMatchObject({ 'mcp.method.name': 'fragile/run', 'error.type': '-32603', 'rpc.response.status_code': '-32603' });
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: 'index 7 out of range' });
    expect(span.events[0]).toMatchObject({ name: 'exception', attributes: { 'exception.type': 'RangeError', 'exception.message': 'index 7 out of range' } });
  });

  it('records a route that produced no result object as the -32603 it is answered with', async () => {
    const s = server().plugin({ name: 'forgetful', register: (host) => host.route('forgetful/run', () => undefined as never) });
    const client = await createTestClient(s);
    await expect(client.request('forgetful/run')).rejects.toMatchObject({ code: -32603 });
    await client.close();
    await s.close();
    const span = telemetry.span('forgetful/run');
    expect(span.attributes).toMatchObject({ 'error.type': '-32603', 'rpc.response.status_code': '-32603' });
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: '"forgetful/run" produced undefined instead of a result object' });
  });

  it('wraps middleware added after it: what that middleware throws is the request’s error', async () => {
    const s = server().use((ctx, next) => {
      if (ctx.method === 'tools/list') throw new McpError(-32003, 'Not for you');
      return next();
    });
    const client = await createTestClient(s);
    await expect(client.listTools()).rejects.toMatchObject({ code: -32003 });
    await client.close();
    await s.close();
    expect(telemetry.span('tools/list').attributes['error.type']).toBe('-32003');
  });
});

describe('trace context', () => {
  it('continues the client’s trace from params._meta (traceparent, tracestate, baggage)', async () => {
    const client = await createTestClient(server());
    await client.request('tools/call', {
      name: 'get_weather',
      arguments: { city: 'Faro' },
      _meta: { traceparent: TRACEPARENT, tracestate: 'rojo=00f067aa0ba902b7', baggage: 'userId=alice' },
    });
    await client.close();

    const span = telemetry.span('tools/call get_weather');
    expect(span.spanContext().traceId).toBe(CLIENT_TRACE_ID);
    expect(span.parentSpanContext).toMatchObject({ traceId: CLIENT_TRACE_ID, spanId: CLIENT_SPAN_ID, isRemote: true });
    expect(span.spanContext().traceState?.get('rojo')).toBe('00f067aa0ba902b7');
    expect(span.links).toEqual([]);
    // The handler runs in the extracted context: baggage included.
    expect(seen.baggage).toBe('alice');
  });

  it('ignores a malformed traceparent and starts a new trace', async () => {
    const client = await createTestClient(server());
    await client.request('tools/list', { _meta: { traceparent: 'not-a-traceparent', tracestate: 42 } });
    await client.close();
    const span = telemetry.span('tools/list');
    expect(span.parentSpanContext).toBeUndefined();
    expect(span.spanContext().traceId).not.toBe(CLIENT_TRACE_ID);
  });

  it('serves the request when a custom propagator throws, and reports it', async () => {
    const propagator = { extract: () => { throw new Error('cannot parse'); }, inject: () => undefined, fields: () => [] };
    const s = new McpServer({ name: 'weather', version: '1.0.0', providers: [providers.Weather], onError: (what, error) => reported.push([what, (error as Error).message]) });
    s.plugin(openTelemetry, { ...telemetry.options, propagator });
    reported.length = 0;
    const client = await createTestClient(s);
    expect((await client.request('tools/call', { name: 'get_weather', arguments: { city: 'Beja' }, _meta: { traceparent: TRACEPARENT } })).content).toEqual([
      { type: 'text', text: 'Sunny in Beja' },
    ]);
    await client.close();
    await s.close();
    expect(reported).toEqual([['plugin "@typemcp/opentelemetry": the propagator failed to read params._meta', 'cannot parse']]);
    expect(telemetry.span('tools/call get_weather').parentSpanContext).toBeUndefined();
  });

  it('nests the spans author code starts under the request span, across awaits', async () => {
    const client = await createTestClient(server());
    expect((await client.callTool('lookup', { city: 'Braga' })).content).toEqual([{ type: 'text', text: 'Braga: 38.7N 9.1W' }]);
    await client.close();

    const request = telemetry.span('tools/call lookup');
    const author = telemetry.span('geocode');
    expect(author.spanContext().traceId).toBe(request.spanContext().traceId);
    expect(author.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
    expect(request.spanContext().spanId).toMatch(hexId);
  });

  it('keeps concurrent requests apart: each handler runs in its own request’s context', async () => {
    const client = await createTestClient(server());
    const traces = ['0af7651916cd43dd8448eb211c80319c', 'b7ad6b7169203331ab0e0b0e4c3a1a4d'];
    await Promise.all(
      traces.map((traceId, i) =>
        client.request('tools/call', { name: 'lookup', arguments: { city: `c${i}` }, _meta: { traceparent: `00-${traceId}-${CLIENT_SPAN_ID}-01` } }),
      ),
    );
    await client.close();

    const requests = telemetry.spans().filter((s) => s.name === 'tools/call lookup');
    const authors = telemetry.spans().filter((s) => s.name === 'geocode');
    expect(requests.map((s) => s.spanContext().traceId).sort()).toEqual([...traces].sort());
    for (const author of authors) {
      const request = requests.find((r) => r.spanContext().spanId === author.parentSpanContext?.spanId);
      expect(request?.spanContext().traceId).toBe(author.spanContext().traceId);
    }
    expect(authors).toHaveLength(2);
  });

  it('is a child of the ambient span when the request carries no trace, and links it when it does', async () => {
    const client = await createTestClient(server());
    const outer = telemetry.tracerProvider.getTracer('transport').startSpan('POST /mcp');
    await context.with(trace.setSpan(context.active(), outer), async () => {
      await client.request('tools/list');
      await client.request('tools/call', { name: 'get_weather', arguments: { city: 'Evora' }, _meta: { traceparent: TRACEPARENT } });
    });
    outer.end();
    await client.close();

    const list = telemetry.span('tools/list');
    expect(list.parentSpanContext?.spanId).toBe(outer.spanContext().spanId);
    expect(list.links).toEqual([]);
    const call = telemetry.span('tools/call get_weather');
    expect(call.parentSpanContext?.spanId).toBe(CLIENT_SPAN_ID);
    expect(call.links.map((l) => l.context.spanId)).toEqual([outer.spanContext().spanId]);
  });
});

describe('spans at 2026-07-28 (no session)', () => {
  it('has no mcp.session.id, and records the result type', async () => {
    const client = await createTestClient(server(), { protocolVersion: '2026-07-28' });
    await client.callTool('get_weather', { city: 'Lisbon' });
    await client.close();
    const span = telemetry.span('tools/call get_weather');
    expect(span.attributes).toEqual({
      'mcp.method.name': 'tools/call',
      'mcp.protocol.version': '2026-07-28',
      'jsonrpc.request.id': expect.any(String),
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'get_weather',
      'mcp.response.result_type': 'complete',
    });
  });

  it('records an input_required round as such, not as an error, and the retry as complete', async () => {
    const s = new McpServer({ name: 'confirm', version: '1.0.0', providers: [providers.Confirm] }).plugin(openTelemetry, telemetry.options);
    const client = await createTestClient(s, { protocolVersion: '2026-07-28', elicitation: () => ({ action: 'accept', content: { ok: true } }) });
    expect((await client.callTool('confirm')).content).toEqual([{ type: 'text', text: 'answered accept' }]);
    await client.close();
    await s.close();

    const rounds = telemetry.spans().filter((span) => span.name === 'tools/call confirm');
    expect(rounds.map((span) => span.attributes['mcp.response.result_type'])).toEqual(['input_required', 'complete']);
    for (const span of rounds) {
      expect(span.status).toEqual({ code: SpanStatusCode.UNSET });
      expect(span.attributes['error.type']).toBeUndefined();
      expect(span.events).toEqual([]);
    }
  });

  it('records an unknown resource as the -32602 of 2026-07-28, where 2025-11-25 answers -32002', async () => {
    for (const protocolVersion of ['2025-11-25', '2026-07-28']) {
      const client = await createTestClient(server(), { protocolVersion });
      await expect(client.readResource('weather://nowhere')).rejects.toMatchObject({ code: protocolVersion === '2026-07-28' ? -32602 : -32002 });
      await client.close();
    }
    const reads = telemetry.spans().filter((s) => s.name === 'resources/read');
    expect(reads.map((s) => [s.attributes['mcp.protocol.version'], s.attributes['error.type'], s.attributes['rpc.response.status_code'], s.attributes['mcp.resource.uri']])).toEqual([
      ['2025-11-25', '-32002', '-32002', 'weather://nowhere'],
      ['2026-07-28', '-32602', '-32602', 'weather://nowhere'],
    ]);
  });

  it('maps a missing client capability to the -32021 the request is answered with', async () => {
    const s = new McpServer({ name: 'confirm', version: '1.0.0', providers: [providers.Confirm] }).plugin(openTelemetry, telemetry.options);
    const client = await createTestClient(s, { protocolVersion: '2026-07-28' });
    await expect(client.callTool('confirm')).rejects.toMatchObject({ code: -32021 });
    await client.close();
    await s.close();
    expect(telemetry.span('tools/call confirm').attributes).toMatchObject({ 'error.type': '-32021', 'rpc.response.status_code': '-32021' });
  });
});
