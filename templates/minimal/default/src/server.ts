import 'reflect-metadata';
import { McpServer } from '@typemcp/core';
import { HelloTools } from './hello/HelloTools.js';

export interface ServerOptions {
  /**
   * The key that signs the state of 2026-07-28 requests that ask the client something; give
   * every instance behind one address the same (required on Cloudflare Workers). Without it
   * each process makes a random one.
   */
  secret?: string;
}

/** The server, separate from main.ts so tests can create it without starting a transport. */
export function createServer(options: ServerOptions = {}): McpServer {
  return new McpServer({
    name: 'typemcp-template-default',
    version: '0.1.0',
    description: 'Says hello: a starting point for your own tools',
    instructions: 'hello greets someone by name.',
    providers: [HelloTools],
    requestState: options.secret ? { secret: options.secret } : undefined,
  });
}
