import 'reflect-metadata';
import { McpServer } from '@typemcp/core';
import { AgentTools } from './AgentTools';

export function createAgentServer(): McpServer {
  return new McpServer({
    name: 'sampling-agent',
    version: '0.1.0',
    instructions: 'compare_weather asks your model to compare cities; it needs sampling with tools.',
    providers: [AgentTools],
  });
}
