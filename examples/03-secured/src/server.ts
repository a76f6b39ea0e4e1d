import 'reflect-metadata';
import { container } from 'tsyringe';
import { McpServer } from '@typemcp/core';
import { auth } from '@typemcp/auth';
import type { AuthOptions } from '@typemcp/auth';
import { NoteStore } from './NoteStore';
import { NoteTools } from './NoteTools';

export const SCOPES = ['notes:read', 'notes:write'];

/** The notes server, protected by tokens of `issuer` that name `resource` as their audience. */
export function createNotesServer(options: Pick<AuthOptions, 'resource' | 'issuer'> & Partial<AuthOptions>): McpServer {
  // Each server keeps its own notes: the store is a singleton of the server's own container.
  const scope = container.createChildContainer();
  scope.registerSingleton(NoteStore);
  const server = new McpServer({
    container: scope,
    name: 'secured-notes',
    version: '1.0.0',
    instructions: 'Notes behind OAuth: list_notes needs notes:read, add_note notes:write, delete_note the admin role.',
    providers: [NoteTools],
  });
  return server.plugin(auth, { scopesSupported: SCOPES, resourceName: 'Secured notes', ...options });
}
