import 'reflect-metadata';
import { McpServer } from '@typemcp/core';
import { WeatherTools } from './WeatherTools';

export function createWeatherServer(): McpServer {
  return new McpServer({
    name: 'weather',
    version: '0.1.0',
    title: 'Weather',
    description: 'Simulated forecasts and temperature conversion; works offline',
    instructions: 'Forecasts and temperature conversion. Forecasts are simulated and work offline.',
    providers: [WeatherTools],
  });
}
