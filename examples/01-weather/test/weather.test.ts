import net from 'node:net';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@typemcp/core';
import type { Transport as SdkTransport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { connectSdkClient } from '../../../test-support/sdkClient';
import { runTsPath, stdioServerParams } from '../../../test-support/spawnServer';
import { expectValidServerMessages, SUPPORTED_SPEC_VERSIONS } from '../../../test-support/specSchema';
import { createWeatherServer } from '../src/server';
import { WeatherService } from '../src/weatherService';

describe('WeatherService', () => {
  it('answers the same question the same way', () => {
    const service = new WeatherService();
    const from = new Date('2026-01-10T12:00:00Z');
    const days = service.forecast('Paris', 3, from);
    expect(days.map((d) => d.date)).toEqual(['2026-01-10', '2026-01-11', '2026-01-12']);
    expect(service.forecast(' paris ', 3, from)).toEqual(days);
    for (const day of days) {
      expect(day.lowC).toBeLessThan(day.highC);
      expect(day.precipitationChance).toBeGreaterThanOrEqual(0);
      expect(day.precipitationChance).toBeLessThanOrEqual(100);
    }
  });
});

describe.each(SUPPORTED_SPEC_VERSIONS)('the weather server over stdio, protocol %s', (version) => {
  it('serves its tools to the official SDK client', async () => {
    const transport = new StdioClientTransport(stdioServerParams(path.join(__dirname, '..', 'src', 'main.ts'), ['--stdio']));
    const { client, recorder } = await connectSdkClient(transport, { protocolVersion: version });
    try {
      expect(client.getInstructions()).toContain('Forecasts');
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['forecast', 'convert_temperature', 'whoami']);

      const forecast = await client.callTool({ name: 'forecast', arguments: { city: 'Paris', days: 2, unit: 'fahrenheit' } });
      const parsed = JSON.parse((forecast.content as Array<{ text: string }>)[0].text);
      expect(parsed).toMatchObject({ city: 'Paris', unit: 'fahrenheit' });
      expect(parsed.days).toHaveLength(2);
      if (version >= '2025-06-18') expect(forecast.structuredContent).toEqual(parsed);

      const tooMany = await client.callTool({ name: 'forecast', arguments: { city: 'Paris', days: 30 } });
      expect(tooMany.isError).toBe(true);
      expect((tooMany.content as Array<{ text: string }>)[0].text).toContain('"days": must be <= 14');

      const converted = await client.callTool({ name: 'convert_temperature', arguments: { value: 100, from: 'celsius', to: 'fahrenheit' } });
      expect(converted.content).toEqual([{ type: 'text', text: '100 °C = 212 °F' }]);
      const frozen = await client.callTool({ name: 'convert_temperature', arguments: { value: -500, from: 'celsius', to: 'fahrenheit' } });
      expect(frozen).toEqual({ content: [{ type: 'text', text: 'Below absolute zero (-273.15 °C)' }], isError: true });

      const who = await client.callTool({ name: 'whoami' });
      expect(who.content).toEqual([{ type: 'text', text: `You are sdk-interop-client 0.0.0, speaking MCP ${version}.` }]);
    } finally {
      await client.close();
    }
    expectValidServerMessages(version, recorder.received);
  });
});

describe('the weather server in memory', () => {
  it('can be tested without a process', async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await createWeatherServer().connect(serverSide);
    const { client, recorder } = await connectSdkClient(clientSide as unknown as SdkTransport, { protocolVersion: '2025-11-25' });
    const result = await client.callTool({ name: 'convert_temperature', arguments: { value: 32, from: 'fahrenheit', to: 'celsius' } });
    expect(result.content).toEqual([{ type: 'text', text: '32 °F = 0 °C' }]);
    await client.close();
    expectValidServerMessages('2025-11-25', recorder.received);
  });
});

describe('the weather server over HTTP, as npm start runs it', () => {
  it('prints its URL, serves the SDK client there, and exits cleanly on SIGTERM', async () => {
    const child = spawn(process.execPath, ['-r', runTsPath, path.join(__dirname, '..', 'src', 'main.ts')], { env: { ...process.env, PORT: '0' } });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      let stderr = '';
      const url = await new Promise<string>((resolve, reject) => {
        child.stderr.on('data', (chunk) => {
          stderr += chunk;
          const found = /at (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr);
          if (found) resolve(found[1]);
        });
        child.on('exit', () => reject(new Error(`exited early: ${stderr}`)));
      });
      const { client, recorder } = await connectSdkClient(new StreamableHTTPClientTransport(new URL(url)), { protocolVersion: '2025-11-25' });
      const converted = await client.callTool({ name: 'convert_temperature', arguments: { value: 0, from: 'celsius', to: 'fahrenheit' } });
      expect(converted.content).toEqual([{ type: 'text', text: '0 °C = 32 °F' }]);
      await client.close();
      expectValidServerMessages('2025-11-25', recorder.received);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });
});

describe('the weather server started on a port that is taken', () => {
  it('says so in one line and exits with 1', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as AddressInfo;
    try {
      const child = spawn(process.execPath, ['-r', runTsPath, path.join(__dirname, '..', 'src', 'main.ts')], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      expect({ code, stderr }).toEqual({
        code: 1,
        stderr: `weather: Cannot listen on 127.0.0.1:${port}: the port is already in use. Stop the process that listens there, or choose another port. Another port: PORT=${port + 1}\n`,
      });
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});
