import 'reflect-metadata';
import { createServer } from 'node:http';
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { container } from 'tsyringe';
import { McpServer } from '@typemcp/core';
import { sameKey } from '../sameKey';
import { NoteStore } from './NoteStore';
import { NoteTools } from './NoteTools';
import { RequestLog } from './RequestLog';
import type { LoggedRequest } from './RequestLog';

/** The notes server, writing what its HTTP front saw to `requests`. */
export function createNotesServer(requests: RequestLog): McpServer {
  // Each server keeps its own notes and log: singletons of the server's own container.
  const scope = container.createChildContainer();
  scope.registerSingleton(NoteStore);
  scope.registerInstance(RequestLog, requests);
  return new McpServer({
    container: scope,
    name: 'notes',
    version: '1.0.0',
    instructions: 'Team notes: add_note, search_notes, note://{id}, and the summarize_notes prompt.',
    providers: [NoteTools],
  });
}

export interface NotesServiceOptions {
  /** The key every request must carry in `x-api-key`: the notes service trusts only its holder. */
  apiKey: string;
  host?: string;
  /** Default 0: a free port. */
  port?: number;
}

export interface NotesService {
  /** `http://<host>:<port>/mcp` */
  url: string;
  close(): Promise<void>;
}

/** Serves the notes over Streamable HTTP to holders of the key, logging every request it gets. */
export async function serveNotes(options: NotesServiceOptions): Promise<NotesService> {
  const requests = new RequestLog();
  const server = createNotesServer(requests);
  const handler = server.httpHandler({ path: '/mcp' });
  const http = createServer((req, res) => {
    const entry = describe(req, options.apiKey);
    requests.add(entry);
    if (entry.apiKey !== 'valid') {
      res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'this service needs its key in x-api-key' }));
      return;
    }
    void handler(req, res);
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port ?? 0, host, resolve);
  });
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://${host}:${port}/mcp`,
    async close() {
      await server.close();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}

function describe(req: IncomingMessage, apiKey: string): LoggedRequest {
  const given = req.headers['x-api-key'];
  const mcpMethod = req.headers['mcp-method'];
  return {
    method: req.method ?? 'GET',
    ...(typeof mcpMethod === 'string' ? { mcpMethod } : {}),
    apiKey: given === undefined ? 'missing' : sameKey(given, apiKey) ? 'valid' : 'wrong',
    headers: Object.keys(req.headers).sort(),
  };
}
