import 'reflect-metadata';
import { IsString } from 'class-validator';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { McpServer, metadataStore, Tool } from '@typemcp/core';
import { openTelemetry } from '@typemcp/opentelemetry';
import { connectSdkClient } from '../../../test-support/sdkClient';
import { expectValidServerMessages } from '../../../test-support/specSchema';
import { CLIENT_SPAN_ID, CLIENT_TRACE_ID, Telemetry, TRACEPARENT, useAsyncContext } from './telemetry';

useAsyncContext();

function declareProviders() {
  class CityInput {
    @IsString() city!: string;
  }
  class Weather {
    @Tool({ description: 'Current weather in a city' })
    get_weather(input: CityInput): string {
      return `Sunny in ${input.city}`;
    }
  }
  return { Weather };
}

let telemetry: Telemetry;
let server: McpServer;
let Weather: ReturnType<typeof declareProviders>['Weather'];

beforeEach(() => {
  metadataStore.clear();
  ({ Weather } = declareProviders());
  telemetry = new Telemetry();
});
afterEach(async () => {
  await server?.close();
  await telemetry.shutdown();
});

async function serve(options: { stateless?: boolean } = {}): Promise<URL> {
  server = new McpServer({ name: 'weather', version: '1.0.0', providers: [Weather] }).plugin(openTelemetry, telemetry.options);
  const { url } = await server.listen({ transport: 'http', host: '127.0.0.1', port: 0, handleSignals: false, ...options });
  return new URL(url);
}

describe('over Streamable HTTP on 127.0.0.1', () => {
  it('traces a 2025-11-25 session of the official SDK client, one session id on every span', async () => {
    const url = await serve();
    const { client, recorder } = await connectSdkClient(new StreamableHTTPClientTransport(url), { protocolVersion: '2025-11-25' });
    let sessionIds: string[] = [];
    try {
      await client.listTools();
      const result = await client.callTool({ name: 'get_weather', arguments: { city: 'Lisbon' }, _meta: { traceparent: TRACEPARENT } });
      expect(result.content).toEqual([{ type: 'text', text: 'Sunny in Lisbon' }]);
      sessionIds = server.sessions.map((session) => session.id);
    } finally {
      await client.close();
    }
    expectValidServerMessages('2025-11-25', recorder.received);

    // The handshake is a request too: it has a span, in the session.
    expect(telemetry.spans().map((s) => s.name)).toEqual(['initialize', 'tools/list', 'tools/call get_weather']);
    expect(telemetry.span('initialize').attributes['mcp.session.id']).toBe(sessionIds[0]);
    const list = telemetry.span('tools/list');
    const call = telemetry.span('tools/call get_weather');
    expect(call.kind).toBe(SpanKind.SERVER);
    expect(call.attributes).toEqual({
      'mcp.method.name': 'tools/call',
      'mcp.protocol.version': '2025-11-25',
      'mcp.session.id': expect.any(String),
      'jsonrpc.request.id': expect.any(String),
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'get_weather',
      'network.transport': 'tcp',
      'client.address': '127.0.0.1',
    });
    expect(call.attributes['mcp.session.id']).toBe(list.attributes['mcp.session.id']);
    expect(sessionIds).toEqual([call.attributes['mcp.session.id']]);
    expect(call.attributes['jsonrpc.request.id']).not.toBe(list.attributes['jsonrpc.request.id']);
    expect(call.parentSpanContext).toMatchObject({ traceId: CLIENT_TRACE_ID, spanId: CLIENT_SPAN_ID, isRemote: true });
    expect(list.parentSpanContext).toBeUndefined();
  });

  it('records no session id for a stateless server, whose sessions last one POST', async () => {
    const url = await serve({ stateless: true });
    const { client } = await connectSdkClient(new StreamableHTTPClientTransport(url), { protocolVersion: '2025-11-25' });
    try {
      await client.callTool({ name: 'get_weather', arguments: { city: 'Porto' } });
    } finally {
      await client.close();
    }
    const call = telemetry.span('tools/call get_weather');
    expect(call.attributes['mcp.protocol.version']).toBe('2025-11-25');
    expect(call.attributes['mcp.session.id']).toBeUndefined();
  });

  describe('a 2026-07-28 request', () => {
    const VERSION = '2026-07-28';
    const post = (url: URL, params: Record<string, unknown>, headers: Record<string, string> = {}) =>
      fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': VERSION,
          'mcp-method': 'tools/call',
          'mcp-name': 'get_weather',
          ...headers,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 'call-1', method: 'tools/call', params }),
      });
    const params = {
      name: 'get_weather',
      arguments: { city: 'Faro' },
      _meta: {
        'io.modelcontextprotocol/protocolVersion': VERSION,
        'io.modelcontextprotocol/clientCapabilities': {},
        traceparent: TRACEPARENT,
      },
    };

    it('is traced without a session, in the client’s trace', async () => {
      const url = await serve();
      const response = await post(url, params);
      expect(response.status).toBe(200);
      const body = (await response.json()) as Record<string, any>;
      expect(body.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'Sunny in Faro' }] });
      expectValidServerMessages(VERSION, [{ message: body, requestMethod: 'tools/call' }]);

      const call = telemetry.span('tools/call get_weather');
      expect(call.attributes).toEqual({
        'mcp.method.name': 'tools/call',
        'mcp.protocol.version': VERSION,
        'jsonrpc.request.id': 'call-1',
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'get_weather',
        'mcp.response.result_type': 'complete',
        'network.transport': 'tcp',
        'client.address': '127.0.0.1',
      });
      expect(call.status.code).toBe(SpanStatusCode.UNSET);
      expect(call.parentSpanContext).toMatchObject({ traceId: CLIENT_TRACE_ID, spanId: CLIENT_SPAN_ID, isRemote: true });
    });

    it('is not traced when the transport refuses it before it reaches the server (headers that contradict the body)', async () => {
      const url = await serve();
      const response = await post(url, params, { 'mcp-name': 'other_tool' });
      expect(response.status).toBe(400);
      expect(((await response.json()) as Record<string, any>).error.code).toBe(-32020);
      expect(telemetry.spans()).toEqual([]);
    });
  });
});
