import { typed } from '@typemcp/client';
import type { Client } from '@typemcp/client';
import { createWeatherServer } from '../../../examples/01-weather/src/server';
import type { WeatherTools } from '../../../examples/01-weather/src/WeatherTools';
import { inMemory } from './everything';

describe('typed()', () => {
  let client: Client;
  beforeAll(async () => {
    client = await inMemory(createWeatherServer());
  });
  afterAll(() => client.close());

  it('calls the tools of a provider class, inferred from its type', async () => {
    const { tools, call } = typed<typeof WeatherTools>(client);
    const forecast = await tools.forecast({ city: 'Oslo', days: 1, unit: 'celsius' });
    expect(forecast.isError).toBeFalsy();
    expect(forecast.structuredContent).toMatchObject({ city: 'Oslo', unit: 'celsius' });
    expect(forecast.structuredContent?.days).toHaveLength(1);
    expect((await tools.convert_temperature({ value: 0, from: 'celsius', to: 'fahrenheit' })).content).toEqual([{ type: 'text', text: '0 °C = 32 °F' }]);
    expect((await tools.whoami()).content[0].text).toMatch(/^You are /);
    expect((await call('convert_temperature', { value: 212, from: 'fahrenheit', to: 'celsius' })).content[0].text).toBe('212 °F = 100 °C');
  });

  it('passes the call options to the client: an aborted signal rejects the call', async () => {
    const { tools } = typed<typeof WeatherTools>(client);
    await expect(tools.forecast({ city: 'Oslo' }, { signal: AbortSignal.abort(new Error('stopped')) })).rejects.toThrow('stopped');
  });

  it('hands the name, the arguments and the options to callTool as they are, and its result back', async () => {
    const calls: unknown[][] = [];
    const result = { content: [{ type: 'text', text: 'ok' }] };
    const { tools, call } = typed<{ 'odd-name': { input: { a: number } }; then: { input: {} } }>({
      callTool: async (...args: unknown[]) => {
        calls.push(args);
        return result;
      },
    });
    expect(await tools['odd-name']({ a: 1 }, { timeoutMs: 5 })).toBe(result);
    expect(await call('then')).toBe(result);
    expect(calls).toEqual([
      ['odd-name', { a: 1 }, { timeoutMs: 5 }],
      ['then', undefined, undefined],
    ]);
    // `tools` is no promise: awaiting it gives it back.
    expect(await Promise.resolve(tools)).toBe(tools);
    expect((tools as unknown as Record<symbol, unknown>)[Symbol.iterator]).toBeUndefined();
  });
});
