import fs from 'node:fs';
import path from 'node:path';
import { createTestClient } from '@typemcp/testing';
import type { TestClient } from '@typemcp/testing';
import { createWeatherServer } from '../../../../../examples/01-weather/src/server';
import { toolsModule } from '../../../src/client/toolsModule';
import { typed as typedWeather } from '../../types/weatherTools';
import { typeCheck } from './compile';

/** The checked-in module the type tests (test/types/typedCalls.ts) use. */
const fixture = path.join(__dirname, '..', '..', 'types', 'weatherTools.ts');

let client: TestClient;
beforeAll(async () => {
  client = await createTestClient(createWeatherServer());
});
afterAll(() => client.close());

describe('the generated module of the weather example', () => {
  it('is what the generator makes of the server’s listing today (TYPEMCP_UPDATE_TYPES=1 rewrites it)', async () => {
    const text = toolsModule(await client.listTools(), { server: 'weather 0.1.0' });
    if (process.env.TYPEMCP_UPDATE_TYPES === '1') fs.writeFileSync(fixture, text);
    expect(fs.readFileSync(fixture, 'utf8')).toBe(text);
  });

  it('compiles on its own', () => {
    expect(typeCheck({ 'weatherTools.ts': fs.readFileSync(fixture, 'utf8') })).toEqual([]);
  });

  it('calls the tools through its typed()', async () => {
    const { tools, call } = typedWeather(client);
    const forecast = await tools.forecast({ city: 'Paris', days: 2, unit: 'fahrenheit' });
    if (forecast.isError) throw new Error('forecast failed');
    expect(forecast.structuredContent).toMatchObject({ city: 'Paris', unit: 'fahrenheit' });
    expect(forecast.structuredContent.days).toHaveLength(2);
    expect((await tools.convert_temperature({ value: 100, from: 'celsius', to: 'fahrenheit' })).content).toEqual([{ type: 'text', text: '100 °C = 212 °F' }]);
    expect((await tools.whoami()).content[0].text).toMatch(/^You are /);
    expect((await call('convert_temperature', { value: 32, from: 'fahrenheit', to: 'celsius' })).content[0].text).toBe('32 °F = 0 °C');
  });
});
