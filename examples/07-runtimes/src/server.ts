import 'reflect-metadata';
import { McpServer } from '@typemcp/core';
import { NotesProvider } from './NotesProvider';

export interface NotesServerOptions {
  /** The requestState secret: the same for every process or isolate behind one address. */
  secret?: string;
}

/** The notes server, the same on every runtime; each entry (node.ts, bun.ts, deno.ts, worker.ts) serves it its own way. */
export function createNotesServer(options: NotesServerOptions = {}): McpServer {
  return new McpServer({
    name: 'notes',
    version: '0.1.0',
    providers: [NotesProvider],
    requestState: options.secret ? { secret: options.secret } : undefined,
  });
}
