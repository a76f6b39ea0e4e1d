import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';

/** A listening server of `serveFetch`. */
export interface FetchServer {
  /** The server's address: `http://127.0.0.1:<port>`. */
  readonly origin: string;
  readonly port: number;
  /** Stops listening and ends the connections still open. */
  close(): Promise<void>;
}

/**
 * Serves a Fetch API handler (`server.fetchHandler()`, a Worker's `fetch`) over node:http on
 * 127.0.0.1, with Node's own `Request` and `Response`: what Bun, Deno and Workers hand a fetch
 * handler themselves, for tests of fetch deployments with real HTTP clients. The client going
 * away aborts the request's signal, as those hosts do. Port 0 (the default) picks a free one.
 */
export async function serveFetch(fetch: (request: Request) => Promise<Response>, options: { port?: number; host?: string } = {}): Promise<FetchServer> {
  const host = options.host ?? '127.0.0.1';
  const http: Server = createServer((req, res) => void bridge(fetch, req, res, host));
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = http.address() as { port: number };
  return {
    origin: `http://${host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      }),
  };
}

async function bridge(fetch: (request: Request) => Promise<Response>, req: IncomingMessage, res: ServerResponse, host: string): Promise<void> {
  const gone = new AbortController();
  res.on('close', () => res.writableFinished || gone.abort());
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, one);
  }
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  let response: Response;
  try {
    response = await fetch(
      new Request(`http://${req.headers.host ?? host}${req.url ?? '/'}`, {
        method: req.method,
        headers,
        body: hasBody ? (Readable.toWeb(req) as ReadableStream<Uint8Array>) : undefined,
        duplex: 'half',
        signal: gone.signal,
      } as RequestInit),
    );
  } catch (error) {
    res.writeHead(500, { 'content-type': 'text/plain' }).end(`The fetch handler failed: ${error instanceof Error ? error.message : String(error)}`);
    return;
  }
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (response.body === null) return void res.end();
  const reader = response.body.getReader();
  res.on('close', () => void reader.cancel().catch(() => undefined));
  for (;;) {
    const { done, value } = await reader.read().catch(() => ({ done: true as const, value: undefined }));
    if (done) break;
    res.write(value);
  }
  res.end();
}
