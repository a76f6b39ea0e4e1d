import { IsString, MaxLength, MinLength } from 'class-validator';
import { Description, Tool } from '@typemcp/core';

export class CityInput {
  @IsString() @MinLength(1) @MaxLength(100) @Description('City name, e.g. "Paris"')
  city!: string;
}

const CONDITIONS: Record<string, { temperatureC: number; condition: string }> = {
  paris: { temperatureC: 18, condition: 'partly cloudy' },
  london: { temperatureC: 14, condition: 'light rain' },
  tokyo: { temperatureC: 22, condition: 'sunny' },
};

/**
 * Tools offered to the client's model during sampling, not to the client itself: the
 * runtime runs them when the model asks. Data is fixed so the example works offline.
 */
export class WeatherLookup {
  @Tool({ name: 'get_weather', description: 'Current weather for a city' })
  getWeather(input: CityInput): string {
    const found = CONDITIONS[input.city.trim().toLowerCase()];
    if (!found) return `No weather data for ${input.city}`;
    return JSON.stringify({ city: input.city, ...found });
  }
}
