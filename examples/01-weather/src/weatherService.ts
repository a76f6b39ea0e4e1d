import { singleton } from 'tsyringe';

export interface DailyForecast {
  date: string;
  highC: number;
  lowC: number;
  condition: string;
  precipitationChance: number;
}

const CONDITIONS = ['sunny', 'partly cloudy', 'cloudy', 'light rain', 'rain', 'thunderstorms', 'snow', 'fog'];

/**
 * A stand-in for a weather API: forecasts are derived from the city name and date, so the
 * example runs offline and answers the same question the same way.
 */
@singleton()
export class WeatherService {
  forecast(city: string, days: number, from = new Date()): DailyForecast[] {
    const seed = hash(city.trim().toLowerCase());
    return Array.from({ length: days }, (_, i) => {
      const date = new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), from.getUTCDate() + i));
      const dayHash = hash(`${seed}:${date.toISOString().slice(0, 10)}`);
      const base = (seed % 30) - 5;
      const high = base + (dayHash % 8);
      return {
        date: date.toISOString().slice(0, 10),
        highC: high,
        lowC: high - 4 - (dayHash % 5),
        condition: CONDITIONS[dayHash % CONDITIONS.length],
        precipitationChance: (dayHash >>> 3) % 101,
      };
    });
  }
}

function hash(text: string | number): number {
  let h = 2166136261;
  for (const char of String(text)) h = Math.imul(h ^ char.charCodeAt(0), 16777619);
  return h >>> 0;
}
