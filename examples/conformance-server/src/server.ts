import 'reflect-metadata';
import { McpServer } from '@typemcp/core';
import { ConformancePrompts } from './ConformancePrompts';
import { ConformanceResources } from './ConformanceResources';
import { ConformanceSkill } from './ConformanceSkill';
import { ConformanceTools } from './ConformanceTools';
import { InputRequiredTools } from './InputRequiredTools';
import { changeListsOf, StatelessTools } from './StatelessTools';
import { TaskTools } from './TaskTools';

/**
 * The server the official conformance suite (`@modelcontextprotocol/conformance server`) is
 * run against by scripts/conformance.sh: suite 0.1.16 with `--suite all` (2025-11-25 over the
 * handshake) and suite 0.2.0-alpha.12 with `--suite all --spec-version 2026-07-28`
 * (stateless), and suite 0.2.0-alpha.12 with `--suite all` alone (the tasks and skills
 * extensions). It offers exactly the tools, resources, prompts, completions and skills the
 * scenarios call; see SCENARIOS.md. ConformanceTools comes first: http-header-validation
 * calls the first listed tool with no arguments.
 */
export interface ConformanceServerOptions {
  /** The folder of skills (Node: skills/ beside src/ and dist/); without one, the same skill is served from ConformanceSkill. */
  skillsFolder?: string;
  /** requestState.secret: required on Workers, where isolates come and go. */
  secret?: string;
}

export function createConformanceServer(options: ConformanceServerOptions = {}): McpServer {
  const server = new McpServer({
    name: 'typemcp-conformance-server',
    version: '0.1.0',
    title: 'TypeMCP conformance server',
    instructions: 'Fixtures for the MCP conformance suite; not useful to a model.',
    providers: [ConformanceTools, InputRequiredTools, StatelessTools, TaskTools, ConformanceResources, ConformancePrompts, ...(options.skillsFolder ? [] : [ConformanceSkill])],
    requestState: options.secret ? { secret: options.secret } : undefined,
  });
  // sep-2640-*: one skill with a subdirectory.
  if (options.skillsFolder) server.skills(options.skillsFolder);
  // test_trigger_tool_change and test_trigger_prompt_change change this server's lists.
  return changeListsOf(server);
}
