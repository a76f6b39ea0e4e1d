import 'reflect-metadata';
import { container } from 'tsyringe';
import { McpServer } from '@typemcp/core';
import { CounterApp } from './CounterApp';
import { CounterStore } from './counter';

/** A counter served as an MCP App: a tool with a UI, tools the UI calls, and the UI resource. */
export function createAppsServer(): McpServer {
  const scope = container.createChildContainer();
  scope.registerSingleton(CounterStore);
  return new McpServer({
    name: 'counter',
    version: '0.1.0',
    title: 'Counter app',
    instructions: 'A counter. show_counter shows it (with a UI in hosts that render MCP Apps); increment changes it.',
    container: scope,
    providers: [CounterApp],
  });
}
