import 'reflect-metadata';
import { McpServer } from '@typemcp/core';
import { ConformancePrompts } from './ConformancePrompts';
import { ConformanceResources } from './ConformanceResources';
import { ConformanceTools } from './ConformanceTools';

/**
 * The server the official conformance suite (`@modelcontextprotocol/conformance server
 * --suite all`) is run against by scripts/conformance.sh. It offers exactly the tools,
 * resources, prompts and completions the scenarios call; see SCENARIOS.md.
 */
export function createConformanceServer(): McpServer {
  return new McpServer({
    name: 'typemcp-conformance-server',
    version: '0.1.0',
    title: 'TypeMCP conformance server',
    instructions: 'Fixtures for the MCP conformance suite; not useful to a model.',
    providers: [ConformanceTools, ConformanceResources, ConformancePrompts],
  });
}
