import 'reflect-metadata';
import { container } from 'tsyringe';
import { McpServer } from '@typemcp/core';
import { NoteStore } from './notes/NoteStore.js';
import { NoteTools } from './notes/NoteTools.js';

export interface ServerOptions {
  /**
   * The key that signs the state of 2026-07-28 requests that ask the client something; give
   * every instance behind one address the same (required on Cloudflare Workers). Without it
   * each process makes a random one.
   */
  secret?: string;
}

/**
 * The server, separate from main.ts so tests can create it without starting a transport.
 * Each server gets its own container, so each has its own NoteStore (and each test a fresh one).
 */
export function createServer(options: ServerOptions = {}): McpServer {
  const services = container.createChildContainer();
  services.registerSingleton(NoteStore);
  return new McpServer({
    name: 'typemcp-template-default',
    version: '0.1.0',
    description: 'Keeps notes: add, read, list and summarize them',
    instructions: 'Keeps notes: add_note saves one, notes://all lists them, the summarize prompt summarizes one.',
    providers: [NoteTools],
    container: services,
    requestState: options.secret ? { secret: options.secret } : undefined,
  });
}
