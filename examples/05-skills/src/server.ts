import 'reflect-metadata';
import path from 'node:path';
import { McpServer } from '@typemcp/core';
import { ReleaseSkills } from './ReleaseSkills';

/** The folder of Agent Skills this example serves, beside src/ and dist/. */
export const SKILLS_FOLDER = path.join(__dirname, '..', 'skills');

/**
 * Serves Agent Skills over the Skills extension: a folder of skills (reloaded on change with
 * `watch`) and two skills written by code.
 */
export function createSkillsServer(options: { watch?: boolean; folder?: string } = {}): McpServer {
  const server = new McpServer({
    name: 'skills',
    version: '0.1.0',
    title: 'Team skills',
    instructions: 'Skills for this team: Git conventions, PDF work, refunds, releases and on-call. List them with skills/list.',
  });
  server.skills(options.folder ?? SKILLS_FOLDER, { watch: options.watch });
  server.register(ReleaseSkills);
  return server;
}
