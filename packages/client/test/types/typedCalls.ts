/**
 * Typed calls inferred from provider classes (`typed<typeof Provider>`, `ToolsOf`), checked by
 * `npm run typecheck` (tsconfig.test.json): each `@ts-expect-error` is a call the types must
 * refuse, each line without one a call they must accept. Nothing here runs; typed.test.ts
 * makes such calls against the weather example.
 */
import type { Context } from '@typemcp/core';
import { typed } from '@typemcp/client';
import type { Client, ToolCaller, ToolsOf } from '@typemcp/client';
import type { WeatherTools } from '../../../../examples/01-weather/src/WeatherTools';
import { typed as typedGenerated } from '../../../cli/test/types/weatherTools';

declare const client: ToolCaller;
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const expectType = <T extends true>(_: T) => undefined;

export async function inferredTypes() {
  const { tools } = typed<typeof WeatherTools>(client);
  const forecast = await tools.forecast({ city: 'Paris', unit: 'celsius' });
  // A string enum of the DTO is its values, as JSON carries them; the output may be there.
  expectType<Equal<NonNullable<typeof forecast.structuredContent>['unit'], 'celsius' | 'fahrenheit'>>(true);
  const day = forecast.structuredContent?.days[0];
  const chance: number | undefined = day?.precipitationChance;
  void chance;
  await tools.convert_temperature({ value: 1, from: 'celsius', to: 'fahrenheit' });
  // whoami(ctx: Context): the Context is not an argument.
  await tools.whoami();

  // @ts-expect-error a wrong argument type
  await tools.forecast({ city: 42 });
  // @ts-expect-error a missing required argument
  await tools.convert_temperature({ value: 1, from: 'celsius' });
  // @ts-expect-error a misspelled tool
  await tools.convert_temprature({ value: 1, from: 'celsius', to: 'fahrenheit' });
  // @ts-expect-error not a unit
  await tools.forecast({ city: 'Paris', unit: 'kelvin' });

  // The map itself, and what it reads of a provider's methods.
  class Dto {
    id!: string;
    when?: Date;
    tags?: string[];
  }
  class Result {
    ok!: boolean;
    at!: Date;
  }
  class Tools2 {
    constructor(private readonly secret: string) {}
    plain(input: Dto): string {
      return input.id + this.secret;
    }
    async withContextFirst(ctx: Context, input: Dto): Promise<Result> {
      void ctx;
      return { ok: input.id !== '', at: new Date() };
    }
    nothing(): void {}
    bytes(): Uint8Array {
      return new Uint8Array();
    }
    field = 1;
  }
  type Map = ToolsOf<typeof Tools2>;
  expectType<Equal<keyof Map, 'plain' | 'withContextFirst' | 'nothing' | 'bytes'>>(true);
  expectType<Equal<Map['plain']['input'], { id: string; when?: string; tags?: string[] }>>(true);
  expectType<Equal<Map['withContextFirst']['input'], { id: string; when?: string; tags?: string[] }>>(true);
  expectType<Equal<Map['withContextFirst'], { input: { id: string; when?: string; tags?: string[] } } & { output?: { ok: boolean; at: string } }>>(true);
  expectType<Equal<Map['nothing'], { input: Record<string, never> }>>(true);
  expectType<Equal<Map['bytes'], { input: Record<string, never> }>>(true);
  // Two providers: the tools of both.
  const both = typed<ToolsOf<typeof Tools2 | typeof WeatherTools>>(client).tools;
  await both.plain({ id: 'x' });
  await both.forecast({ city: 'x' });
  // @ts-expect-error a misspelled tool of either
  await both.plian({ id: 'x' });
}

/** The package's `Client` is a `ToolCaller`, of this typed() and of a generated module's. */
export async function withTheClient(real: Client) {
  await typed<typeof WeatherTools>(real).tools.forecast({ city: 'Paris' });
  const generated = await typedGenerated(real).tools.forecast({ city: 'Paris' });
  if (!generated.isError) void generated.structuredContent.days;
}
