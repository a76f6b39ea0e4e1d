import 'reflect-metadata';
import { McpServer } from '@typemcp/core';
import { signIn } from '@typemcp/auth';
import type { Authenticate, SignInStore } from '@typemcp/auth';
import { HelloTools } from './hello/HelloTools.js';

/** The scopes of HelloTools' `@Scopes`, in the words the consent page shows. */
export const SCOPES: Readonly<Record<string, string>> = {
  hello: 'Greet people by name',
};

export interface ServerOptions {
  /**
   * The MCP endpoint's URL as clients reach it (`https://mcp.example.com/mcp` in production):
   * the audience of every token; the sign-in endpoints are served at its origin.
   */
  resource: string;
  /** Who is signing in: a development login (see auth.ts), your application's session in production. */
  authenticate: Authenticate;
  /** 32 characters or more that encrypt the signing keys where they are stored; the same on every replica. */
  secret: string;
  /** Where clients, grants, consents and keys are kept. Default: this process's memory (one replica; a restart forgets them). */
  store?: SignInStore;
}

/**
 * The server behind its own sign-in: an OAuth 2.1 authorization server at the resource's
 * origin that MCP clients register with (DCR or a metadata document), sign the user in
 * through and get tokens from. Separate from main.ts so tests can create it.
 */
export function createServer(options: ServerOptions): McpServer {
  const server = new McpServer({
    name: 'typemcp-template-default',
    version: '0.1.0',
    description: 'Says hello: a starting point for your own tools',
    instructions: 'hello greets someone by name (scope hello).',
    providers: [HelloTools],
  });
  return server.plugin(signIn, {
    resource: options.resource,
    authenticate: options.authenticate,
    secret: options.secret,
    store: options.store,
    // What a client asks for when it names no scope; a scope refused later is asked for then (step-up).
    defaultScopes: ['hello'],
    scopeDescriptions: SCOPES,
    // stdio carries no tokens, and only whoever starts the process reaches it (npm run
    // inspect, typemcp call, a desktop client): that local user has every scope.
    stdio: { subject: 'local', scopes: Object.keys(SCOPES), claims: {} },
  });
}
