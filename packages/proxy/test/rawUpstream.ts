/**
 * A hand-written Streamable HTTP upstream on 127.0.0.1 (handshake era), for answers no
 * well-behaved server gives: each tool is a function that writes the HTTP response to its call
 * itself. With `session`, initialize hands out a session id and a GET opens a stream that
 * stays open (in `listening`).
 */
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type RawTool = (id: unknown, res: ServerResponse, params: Record<string, unknown>) => void;

export interface RawUpstream {
  url: string;
  /** The responses still open (a body that never ends stays here until the client lets go). */
  readonly open: Set<ServerResponse>;
  /** The GET streams open (with `session`). */
  readonly listening: Set<ServerResponse>;
  close(): Promise<void>;
}

export function json(res: ServerResponse, body: unknown, status = 200): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

export async function startRawUpstream(tools: Record<string, RawTool>, { session = false } = {}): Promise<RawUpstream> {
  const open = new Set<ServerResponse>();
  const listening = new Set<ServerResponse>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.method === 'GET' && session) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': open\n\n');
      listening.add(res);
      res.on('close', () => listening.delete(res));
      return;
    }
    open.add(res);
    res.on('close', () => open.delete(res));
    if (req.method !== 'POST') {
      res.writeHead(req.method === 'GET' ? 405 : 200).end();
      return;
    }
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => {
      const message = JSON.parse(text) as { id?: unknown; method: string; params?: { name?: string; arguments?: Record<string, unknown>; _meta?: Record<string, unknown> } };
      if (message.id === undefined) return void res.writeHead(202).end();
      if (message.method === 'initialize') {
        if (session) res.setHeader('mcp-session-id', 'raw-session');
        return json(res, { jsonrpc: '2.0', id: message.id, result: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'raw', version: '1' } } });
      }
      if (message.method === 'tools/list') {
        return json(res, { jsonrpc: '2.0', id: message.id, result: { tools: Object.keys(tools).map((name) => ({ name, inputSchema: { type: 'object' } })) } });
      }
      const tool = message.method === 'tools/call' ? tools[message.params?.name ?? ''] : undefined;
      if (!tool) return json(res, { jsonrpc: '2.0', id: message.id, error: { code: -32601, message: `no ${message.method}` } });
      tool(message.id, res, message.params ?? {});
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    open,
    listening,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The text of a tool result, `{"type":"text","text":…}`, as JSON-RPC, split as it would be streamed. */
export function answerParts(id: unknown, text = ''): { head: string; tail: string } {
  const whole = JSON.stringify({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: '\u0000' }] } });
  const [head, tail] = whole.split('\\u0000');
  return { head: head + text, tail };
}

/**
 * Writes `chunk` again and again until `total` characters were written (`Infinity`: until the
 * client lets go), as the client reads them; resolves false when the client let go first.
 */
export async function pump(res: ServerResponse, chunk: string | Buffer, total: number): Promise<boolean> {
  let closed = false;
  let wake = () => undefined as void;
  res.once('close', () => ((closed = true), wake()));
  for (let sent = 0; sent < total; sent += chunk.length) {
    if (closed || res.destroyed) return false;
    if (!res.write(chunk)) await new Promise<void>((resolve) => res.once('drain', (wake = resolve)));
  }
  return !closed;
}
