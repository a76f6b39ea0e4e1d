import 'reflect-metadata';
import { container } from 'tsyringe';
import { McpServer } from '@typemcp/core';
import { NoteStore } from './notes/NoteStore.js';
import { NoteTools } from './notes/NoteTools.js';

/**
 * The server, separate from main.ts so tests can create it without starting a transport.
 * Each server gets its own container, so each has its own NoteStore (and each test a fresh one).
 */
export function createServer(): McpServer {
  const services = container.createChildContainer();
  services.registerSingleton(NoteStore);
  return new McpServer({
    name: 'typemcp-template-default',
    version: '0.1.0',
    instructions: 'Keeps notes: add_note saves one, notes://all lists them, the summarize prompt summarizes one.',
    providers: [NoteTools],
    container: services,
  });
}
