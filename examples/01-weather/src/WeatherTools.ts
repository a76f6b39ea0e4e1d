import { Type } from 'class-transformer';
import { IsEnum, IsInt, IsNumber, IsOptional, IsString, Max, MaxLength, Min, MinLength, ValidateNested } from 'class-validator';
import { injectable } from 'tsyringe';
import { Context, Description, Tool, ToolError } from '@typemcp/core';
import { WeatherService } from './weatherService';

export enum TemperatureUnit {
  Celsius = 'celsius',
  Fahrenheit = 'fahrenheit',
}

export class ForecastInput {
  @IsString() @MinLength(1) @MaxLength(100)
  @Description('City name, e.g. "Paris"')
  city!: string;

  @IsOptional() @IsInt() @Min(1) @Max(14)
  @Description('Number of days to forecast (1-14, default 3)')
  days?: number;

  @IsOptional() @IsEnum(TemperatureUnit)
  @Description('Unit for temperatures (default celsius)')
  unit?: TemperatureUnit;
}

export class ConvertInput {
  @IsNumber() @Description('The temperature to convert')
  value!: number;

  @IsEnum(TemperatureUnit) @Description('Unit of "value"')
  from!: TemperatureUnit;

  @IsEnum(TemperatureUnit) @Description('Unit to convert to')
  to!: TemperatureUnit;
}

export class DayOutput {
  @IsString() @Description('ISO date, YYYY-MM-DD') date!: string;
  @IsNumber() high!: number;
  @IsNumber() low!: number;
  @IsString() condition!: string;
  @IsInt() @Min(0) @Max(100) @Description('Chance of precipitation in percent') precipitationChance!: number;
}

export class ForecastOutput {
  @IsString() city!: string;
  @IsEnum(TemperatureUnit) unit!: TemperatureUnit;
  @ValidateNested({ each: true }) @Type(() => DayOutput) days!: DayOutput[];
}

@injectable()
export class WeatherTools {
  constructor(private readonly weather: WeatherService) {}

  @Tool({
    description: 'Daily weather forecast for a city',
    output: ForecastOutput,
    annotations: { readOnlyHint: true, openWorldHint: false },
  })
  forecast(input: ForecastInput): ForecastOutput {
    const unit = input.unit ?? TemperatureUnit.Celsius;
    const toUnit = (celsius: number) => round(unit === TemperatureUnit.Celsius ? celsius : (celsius * 9) / 5 + 32);
    return {
      city: input.city,
      unit,
      days: this.weather.forecast(input.city, input.days ?? 3).map((day) => ({
        date: day.date,
        high: toUnit(day.highC),
        low: toUnit(day.lowC),
        condition: day.condition,
        precipitationChance: day.precipitationChance,
      })),
    };
  }

  @Tool({ description: 'Convert a temperature between Celsius and Fahrenheit', annotations: { readOnlyHint: true } })
  convert_temperature(input: ConvertInput): string {
    if (input.from === TemperatureUnit.Celsius && input.value < -273.15) throw new ToolError('Below absolute zero (-273.15 °C)');
    if (input.from === TemperatureUnit.Fahrenheit && input.value < -459.67) throw new ToolError('Below absolute zero (-459.67 °F)');
    const celsius = input.from === TemperatureUnit.Celsius ? input.value : ((input.value - 32) * 5) / 9;
    const result = input.to === TemperatureUnit.Celsius ? celsius : (celsius * 9) / 5 + 32;
    return `${round(input.value)} ${symbol(input.from)} = ${round(result)} ${symbol(input.to)}`;
  }

  @Tool({ description: 'Say which client is asking (shows the request Context)' })
  whoami(ctx: Context): string {
    const client = ctx.clientInfo ? `${ctx.clientInfo.name} ${ctx.clientInfo.version}` : 'an unknown client';
    return `You are ${client}, speaking MCP ${ctx.protocolVersion}.`;
  }
}

const round = (n: number) => Math.round(n * 10) / 10;
const symbol = (unit: TemperatureUnit) => (unit === TemperatureUnit.Celsius ? '°C' : '°F');
