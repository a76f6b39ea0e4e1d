import 'reflect-metadata';
import { IsString } from 'class-validator';
import { DataPointType } from '@opentelemetry/sdk-metrics';
import type { Histogram } from '@opentelemetry/sdk-metrics';
import { McpServer, metadataStore, Tool, ToolError } from '@typemcp/core';
import { createTestClient } from '@typemcp/testing';
import { openTelemetry } from '@typemcp/opentelemetry';
import { Telemetry } from './telemetry';

let telemetry: Telemetry;
/** The slow tool: `started` resolves once it runs; `release()` lets it answer. */
let release: () => void;
let started: Promise<void>;
let markStarted: () => void;

function declareProviders() {
  class CityInput {
    @IsString() city!: string;
  }
  class Weather {
    @Tool({ description: 'Current weather in a city' })
    get_weather(input: CityInput): string {
      return `Sunny in ${input.city}`;
    }

    @Tool({ description: 'Has no forecast for the moon' })
    moon(): string {
      throw new ToolError('No forecast for the moon');
    }

    @Tool({ description: 'Waits until the test releases it' })
    async slow(): Promise<string> {
      const released = new Promise<void>((resolve) => (release = resolve));
      markStarted();
      await released;
      return 'done';
    }
  }
  return { Weather };
}

let Weather: ReturnType<typeof declareProviders>['Weather'];
beforeEach(() => {
  metadataStore.clear();
  ({ Weather } = declareProviders());
  telemetry = new Telemetry();
  started = new Promise((resolve) => (markStarted = resolve));
});
afterEach(() => telemetry.shutdown());

const server = () => new McpServer({ name: 'weather', version: '1.0.0', providers: [Weather] }).plugin(openTelemetry, telemetry.options);

const base = { 'mcp.method.name': 'tools/call', 'mcp.protocol.version': '2025-11-25', 'gen_ai.operation.name': 'execute_tool' };

describe('mcp.server.operation.duration', () => {
  it('is a histogram in seconds with the advised buckets and the low-cardinality attributes only', async () => {
    const client = await createTestClient(server());
    await client.callTool('get_weather', { city: 'Lisbon' });
    await client.callTool('get_weather', { city: 'Porto' });
    await client.callTool('moon');
    await expect(client.callTool('no_such_tool')).rejects.toMatchObject({ code: -32602 });
    await client.listTools();
    await client.close();

    const metric = await telemetry.metric<Histogram>('mcp.server.operation.duration');
    expect(metric.unit).toBe('s');
    expect(metric.type).toBe(DataPointType.HISTOGRAM);
    const byAttributes = metric.points.map((p) => [p.attributes, p.value.count]);
    expect(byAttributes).toEqual(
      expect.arrayContaining([
        [{ ...base, 'gen_ai.tool.name': 'get_weather' }, 2],
        [{ ...base, 'gen_ai.tool.name': 'moon', 'error.type': 'tool_error' }, 1],
        // The unknown name the client chose is left out: it would grow the metric without bound.
        [{ ...base, 'error.type': '-32602', 'rpc.response.status_code': '-32602' }, 1],
        [{ 'mcp.method.name': 'tools/list', 'mcp.protocol.version': '2025-11-25' }, 1],
        // The handshake, before any version was negotiated.
        [{ 'mcp.method.name': 'initialize' }, 1],
      ]),
    );
    expect(byAttributes).toHaveLength(5);
    const [point] = metric.points;
    expect(point.value.buckets.boundaries).toEqual([0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300]);
    // Seconds, not milliseconds: an in-memory call takes well under one.
    expect(point.value.sum).toBeGreaterThanOrEqual(0);
    expect(point.value.max).toBeLessThan(1);
  });

  it('records the result type of 2026-07-28 requests', async () => {
    const client = await createTestClient(server(), { protocolVersion: '2026-07-28' });
    await client.callTool('get_weather', { city: 'Lisbon' });
    await client.close();
    const metric = await telemetry.metric<Histogram>('mcp.server.operation.duration');
    expect(metric.points.map((p) => p.attributes)).toEqual(
      expect.arrayContaining([
        { 'mcp.method.name': 'tools/call', 'mcp.protocol.version': '2026-07-28', 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'get_weather', 'mcp.response.result_type': 'complete' },
      ]),
    );
  });
});

describe('mcp.server.active_requests', () => {
  it('counts the requests in progress, by method and protocol version', async () => {
    const client = await createTestClient(server());
    const call = client.callTool('slow');
    await started;

    const during = await telemetry.metric('mcp.server.active_requests');
    expect(during.unit).toBe('{request}');
    expect(during.type).toBe(DataPointType.SUM);
    expect(during.points).toEqual([
      { attributes: { 'mcp.method.name': 'initialize' }, value: 0 },
      { attributes: { 'mcp.method.name': 'tools/call', 'mcp.protocol.version': '2025-11-25' }, value: 1 },
    ]);

    release();
    expect((await call).content).toEqual([{ type: 'text', text: 'done' }]);
    await client.listTools();
    const after = await telemetry.metric('mcp.server.active_requests');
    expect(after.points).toEqual(
      expect.arrayContaining([
        { attributes: { 'mcp.method.name': 'tools/call', 'mcp.protocol.version': '2025-11-25' }, value: 0 },
        { attributes: { 'mcp.method.name': 'tools/list', 'mcp.protocol.version': '2025-11-25' }, value: 0 },
      ]),
    );
    await client.close();
  });
});
