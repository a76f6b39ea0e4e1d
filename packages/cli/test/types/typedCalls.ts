/**
 * Typed calls through a module `typemcp client generate` wrote (weatherTools.ts, kept equal to
 * the generator's output by test/unit/client/typed.test.ts), checked by `npm run typecheck`
 * (tsconfig.test.json): each `@ts-expect-error` is a call the types must refuse, each line
 * without one a call they must accept. Nothing here runs; typed.test.ts makes these calls.
 */
import { typed as typedWeather } from './weatherTools';
import type { ForecastOutput, ToolCaller, Tools } from './weatherTools';

declare const client: ToolCaller;
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const expectType = <T extends true>(_: T) => undefined;

export async function generatedTypes() {
  const { tools, call } = typedWeather(client);
  const forecast = await tools.forecast({ city: 'Paris', days: 3, unit: 'fahrenheit' });
  if (!forecast.isError) {
    expectType<Equal<typeof forecast.structuredContent, ForecastOutput>>(true);
    const high: number = forecast.structuredContent.days[0].high;
    // @ts-expect-error the output has no such property
    void forecast.structuredContent.temperature;
    void high;
  } else {
    expectType<Equal<typeof forecast.structuredContent, undefined>>(true);
  }
  // Without an output schema: the plain result.
  const converted = await tools.convert_temperature({ value: 20, from: 'celsius', to: 'fahrenheit' });
  expectType<Equal<typeof converted.structuredContent, Record<string, unknown> | undefined>>(true);
  // No input: the arguments may be left out.
  await tools.whoami();
  await tools.whoami({});
  await call('forecast', { city: 'Paris' });
  // The generated map is the default, and can be named.
  await typedWeather<Tools>(client).tools.forecast({ city: 'Oslo' });

  // @ts-expect-error a wrong argument type: days is a number
  await tools.forecast({ city: 'Paris', days: '3' });
  // @ts-expect-error a value outside the enum
  await tools.forecast({ city: 'Paris', unit: 'kelvin' });
  // @ts-expect-error a missing required argument: city
  await tools.forecast({ days: 3 });
  // @ts-expect-error the arguments of a tool with a required one may not be left out
  await tools.forecast();
  // @ts-expect-error a property the input schema does not have
  await tools.forecast({ city: 'Paris', dayz: 3 });
  // @ts-expect-error a misspelled tool
  await tools.forcast({ city: 'Paris' });
  // @ts-expect-error a misspelled tool, by name
  await call('forcast', { city: 'Paris' });
  // @ts-expect-error a tool without input takes no property
  await tools.whoami({ verbose: true });
}
