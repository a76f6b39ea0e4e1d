import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { metrics, propagation, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import type { Histogram } from '@opentelemetry/sdk-metrics';
import { DefinitionError, McpServer, metadataStore, Tool } from '@typemcp/core';
import { createTestClient } from '@typemcp/testing';
import { openTelemetry } from '@typemcp/opentelemetry';
import type { OpenTelemetryOptions } from '@typemcp/opentelemetry';
import { CLIENT_SPAN_ID, Telemetry, TRACEPARENT } from './telemetry';

function declareProviders() {
  class Hello {
    @Tool({ description: 'Says hello' })
    hello(): string {
      return 'hello';
    }
  }
  return { Hello };
}

let Hello: ReturnType<typeof declareProviders>['Hello'];
let telemetry: Telemetry;
beforeEach(() => {
  metadataStore.clear();
  ({ Hello } = declareProviders());
  telemetry = new Telemetry();
});
afterEach(async () => {
  trace.disable();
  metrics.disable();
  propagation.disable();
  await telemetry.shutdown();
});

const server = () => new McpServer({ name: 'hello', version: '1.0.0', providers: [Hello] });

describe('server.plugin(openTelemetry)', () => {
  it('is the plugin @typemcp/opentelemetry, versioned as its package', () => {
    const manifest = JSON.parse(readFileSync(path.resolve(__dirname, '../package.json'), 'utf8')) as { name: string; version: string };
    expect(openTelemetry).toMatchObject({ name: manifest.name, version: manifest.version });
  });

  it('uses the global providers and propagator by default, even when they are registered after it', async () => {
    const s = server().plugin(openTelemetry);
    trace.setGlobalTracerProvider(telemetry.tracerProvider);
    metrics.setGlobalMeterProvider(telemetry.meterProvider);
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());

    const client = await createTestClient(s);
    await client.request('tools/call', { name: 'hello', _meta: { traceparent: TRACEPARENT } });
    await client.close();
    await s.close();

    expect(telemetry.span('tools/call hello').parentSpanContext?.spanId).toBe(CLIENT_SPAN_ID);
    const duration = await telemetry.metric<Histogram>('mcp.server.operation.duration');
    expect(duration.points.filter((p) => p.attributes['mcp.method.name'] === 'tools/call').map((p) => [p.attributes['gen_ai.tool.name'], p.value.count])).toEqual([['hello', 1]]);
  });

  it('costs nothing visible without an SDK: the API’s no-ops record nothing and answers are unchanged', async () => {
    const plain = await createTestClient(server());
    const expected = await plain.callTool('hello');
    await plain.close();

    const s = server().plugin(openTelemetry);
    const client = await createTestClient(s);
    expect(await client.callTool('hello')).toEqual(expected);
    await expect(client.callTool('missing')).rejects.toMatchObject({ code: -32602 });
    expect((await client.listTools()).map((t) => t.name)).toEqual(['hello']);
    await client.close();
    await s.close();
  });

  it.each<[string, unknown, string]>([
    ['a string', 'on', 'options must be an object { tracerProvider?, meterProvider?, propagator? }, not string'],
    ['null', null, 'options must be an object { tracerProvider?, meterProvider?, propagator? }, not null'],
    ['an unknown option', { tracer: {} }, 'unknown option "tracer" (known: tracerProvider, meterProvider, propagator)'],
    ['a prototype key', { toString: {} }, 'unknown option "toString" (known: tracerProvider, meterProvider, propagator)'],
    ['a tracer provider without getTracer', { tracerProvider: {} }, 'tracerProvider must be a TracerProvider of @opentelemetry/api (an object with getTracer())'],
    ['a meter provider without getMeter', { meterProvider: 'global' }, 'meterProvider must be a MeterProvider of @opentelemetry/api (an object with getMeter())'],
    ['a propagator without extract', { propagator: { inject() {} } }, 'propagator must be a TextMapPropagator of @opentelemetry/api (an object with extract())'],
  ])('refuses %s with INVALID_OPTION, adding nothing', (_label, options, message) => {
    const s = server();
    let thrown: unknown;
    try {
      s.plugin(openTelemetry, options as OpenTelemetryOptions);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(DefinitionError);
    expect(thrown).toMatchObject({ code: 'INVALID_OPTION', message: `@typemcp/opentelemetry: ${message}` });
    // The name stays free: the plugin can be added with valid options.
    expect(() => s.plugin(openTelemetry, { tracerProvider: undefined })).not.toThrow();
  });
});
