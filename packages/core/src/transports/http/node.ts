import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Principal } from '../../protocol';
import { HttpError } from './HttpReply';
import type { HttpReply } from './HttpReply';
import type { IncomingRequest } from './HttpRequest';
import { StreamableHttp } from './StreamableHttp';
import type { HttpEndpointOptions, HttpServerHost } from './endpoint';

/**
 * The options of `server.httpHandler()`: an HTTP endpoint in a Node server (node:http,
 * Express, Fastify).
 */
export interface HttpHandlerOptions extends HttpEndpointOptions {
  /**
   * Who sent a request, as the application's own authentication knows it: a principal, or just
   * a subject (a user or client id). Used when the server has no authentication plugin. A
   * session and a 2026-07-28 `requestState` are bound to the subject: another one is refused.
   */
  principal?: (req: IncomingMessage) => Principal | string | undefined | Promise<Principal | string | undefined>;
}

/** A Node `(req, res)` handler; `parsedBody` is for frameworks that already parsed JSON. */
export interface NodeHttpHandler {
  (req: IncomingMessage, res: ServerResponse, parsedBody?: unknown): Promise<void>;
  /** Stops taking requests, lets in-flight ones finish (up to `graceMs`), then closes every session. */
  close(graceMs?: number): Promise<void>;
}

declare module 'node:http' {
  interface IncomingMessage {
    /** Set by Express when the handler is mounted under a path. */
    originalUrl?: string;
  }
}

/**
 * The Node adapter of the HTTP core: reads an `IncomingMessage` through a view (no `Request`
 * is built: over Node that costs more than the rest of a request) and writes the core's reply
 * to the `ServerResponse`. It has no behaviour of its own.
 */
export function createNodeHandler(host: HttpServerHost, options: HttpHandlerOptions = {}): NodeHttpHandler {
  const { principal, ...endpoint } = options;
  const core = new StreamableHttp(host, {
    ...endpoint,
    principal: principal && ((request) => principal((request as NodeRequest).req)),
  });
  const handler = (async (req, res, parsedBody) => {
    const request = new NodeRequest(req, res, parsedBody);
    writeReply(res, await core.handle(request));
  }) as NodeHttpHandler;
  handler.close = (graceMs) => core.close(graceMs);
  return handler;
}

/** An `IncomingMessage` as the core reads it. */
class NodeRequest implements IncomingRequest {
  readonly headers = { get: (name: string): string | null => headerOf(this.req, name) };

  constructor(
    readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    readonly parsedBody: unknown,
  ) {}

  get method(): string {
    return this.req.method ?? 'GET';
  }

  get url(): string {
    return this.req.url ?? '/';
  }

  get originalUrl(): string | undefined {
    return this.req.originalUrl;
  }

  get clientAddress(): string | undefined {
    return this.req.socket?.remoteAddress;
  }

  get gone(): boolean {
    return this.res.destroyed || this.res.writableEnded;
  }

  onGone(listener: () => void): void {
    this.res.once('close', () => {
      if (!this.res.writableFinished) listener();
    });
  }

  readBody(maxBytes: number, timeoutMs: number): Promise<string> {
    return readBody(this.req, maxBytes, timeoutMs);
  }
}

/** A header's value as the Fetch API gives it: any case of the name, values of a repeated header joined by ", ". */
function headerOf(req: IncomingMessage, name: string): string | null {
  // Node keeps header names in lower case.
  const value = req.headers[name] ?? req.headers[name.toLowerCase()];
  if (value === undefined) return null;
  return Array.isArray(value) ? value.join(', ') : value;
}

/** Writes the core's reply: a JSON or empty body at once, an event stream as it comes. */
function writeReply(res: ServerResponse, reply: HttpReply): void {
  const body = reply.body;
  if (res.headersSent || res.destroyed) {
    if (body !== undefined && typeof body !== 'string') body.close();
    if (!res.writableEnded) res.end();
    return;
  }
  // A body not received (408) or refused unread (413): the connection ends with the answer, so a
  // client trickling bytes cannot keep it, and no unread body is taken for the next request.
  res.writeHead(reply.status, reply.status === 408 || reply.status === 413 ? { ...reply.headers, connection: 'close' } : reply.headers);
  if (body === undefined || typeof body === 'string') {
    res.end(body);
    return;
  }
  // The client learns at once that its stream is open, even before the first event.
  res.flushHeaders();
  const sink = {
    write: (chunk: string) => {
      if (!res.writableEnded) res.write(chunk);
    },
    end: () => {
      if (!res.writableEnded) res.end();
    },
  };
  res.on('close', () => body.close(sink));
  body.open(sink);
}

/** Reads the request body as UTF-8, refusing more than `maxBytes` (413) or a stalled upload (408). */
function readBody(req: IncomingMessage, maxBytes: number, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (declared > maxBytes) {
      reject(new HttpError(413, `Request body exceeds ${maxBytes} bytes`));
      req.resume();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const timer = setTimeout(() => fail(new HttpError(408, `Request body not received within ${timeoutMs} ms`)), timeoutMs);
    const fail = (error: Error) => {
      clearTimeout(timer);
      req.removeAllListeners('data');
      req.resume();
      reject(error);
    };
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) return fail(new HttpError(413, `Request body exceeds ${maxBytes} bytes`));
      chunks.push(chunk);
    });
    req.on('end', () => {
      clearTimeout(timer);
      resolve(chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks).toString('utf8'));
    });
    req.on('error', fail);
  });
}
