import 'reflect-metadata';
import { container } from 'tsyringe';
import { McpServer } from '@typemcp/core';
import { signIn } from '@typemcp/auth';
import type { SignInOptions } from '@typemcp/auth';
import { NoteBook } from './NoteBook';
import { NoteTools } from './NoteTools';

/**
 * The notes server with its own sign-in: clients register (by metadata document or DCR),
 * the user signs in and consents, and each user's notes stay theirs.
 */
export function createSignInServer(options: Pick<SignInOptions, 'resource' | 'authenticate' | 'secret'> & Partial<SignInOptions>, requestStateSecret?: string): McpServer {
  const scope = container.createChildContainer();
  scope.registerSingleton(NoteBook);
  const server = new McpServer({
    container: scope,
    name: 'signin-notes',
    version: '1.0.0',
    instructions: 'Your own notes: list_notes needs notes:read, add_note notes:write.',
    providers: [NoteTools],
    // The same for every process or isolate behind one address (required on Workers).
    requestState: requestStateSecret === undefined ? undefined : { secret: requestStateSecret },
  });
  return server.plugin(signIn, {
    serviceName: 'Notes',
    // Clients ask to read first; writing is asked for when a write is refused (step-up).
    defaultScopes: ['notes:read'],
    scopeDescriptions: { 'notes:read': 'Read your notes', 'notes:write': 'Add notes for you' },
    ...options,
  });
}
