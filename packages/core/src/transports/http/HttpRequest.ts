import type { HttpRequestInfo } from '../../protocol';
import { HttpError } from './HttpReply';

/**
 * One request as the HTTP core reads it; made by the fetch and Node adapters. Everything the
 * core does with a request goes through this view, so it runs the same on every runtime.
 */
export interface IncomingRequest extends HttpRequestInfo {
  /** The body as UTF-8 text: more than `maxBytes` fails with 413, an upload slower than `timeoutMs` with 408. */
  readBody(maxBytes: number, timeoutMs: number): Promise<string>;
  /** A body a framework already parsed (Express, Fastify); undefined otherwise. */
  readonly parsedBody: unknown;
  /** The URL the request was sent to before a framework mounted the handler under a path (Express's `originalUrl`). */
  readonly originalUrl: string | undefined;
  /** The client's network address, when the host knows it. */
  readonly clientAddress: string | undefined;
  /** True once the client went away (its response can no longer be written). */
  readonly gone: boolean;
  /** Calls `listener` once, when the client goes away before its answer is complete. */
  onGone(listener: () => void): void;
}

/** The path of a request URL, absolute (`https://h/mcp?x`) or not (`/mcp?x`), without its query. */
export function pathOf(url: string): string {
  let start = 0;
  if (url.charCodeAt(0) !== 47 /* "/" */) {
    const scheme = url.indexOf('://');
    start = scheme < 0 ? 0 : url.indexOf('/', scheme + 3);
    if (start < 0) return '/';
  }
  const query = url.indexOf('?', start);
  const hash = url.indexOf('#', start);
  const end = query < 0 ? (hash < 0 ? url.length : hash) : hash < 0 ? query : Math.min(query, hash);
  return url.slice(start, end) || '/';
}

/** The value of one query parameter of a request URL. */
export function queryParam(url: string, name: string): string | null {
  const query = url.indexOf('?');
  return query < 0 ? null : new URLSearchParams(url.slice(query + 1).split('#')[0]).get(name);
}

/** A Fetch API `Request` as the core reads it, with the request itself. */
export interface FetchRequest extends IncomingRequest {
  readonly request: Request;
}

/**
 * A Fetch API `Request` as the core reads it (`fetchHandler`). The body is read from its
 * stream within the limits; the client is gone when the request's signal aborts.
 */
export function fromFetchRequest(request: Request, clientAddress?: string): FetchRequest {
  let gone = request.signal?.aborted ?? false;
  return {
    request,
    method: request.method,
    url: request.url,
    headers: request.headers,
    parsedBody: undefined,
    originalUrl: undefined,
    clientAddress,
    get gone() {
      return gone || (request.signal?.aborted ?? false);
    },
    onGone(listener) {
      request.signal?.addEventListener(
        'abort',
        () => {
          gone = true;
          listener();
        },
        { once: true },
      );
    },
    readBody: (maxBytes, timeoutMs) => readStream(request, maxBytes, timeoutMs),
  };
}

/** Reads a `Request` body as UTF-8, refusing more than `maxBytes` (413) or a stalled upload (408). */
async function readStream(request: Request, maxBytes: number, timeoutMs: number): Promise<string> {
  const declared = Number(request.headers.get('content-length'));
  if (declared > maxBytes) throw new HttpError(413, `Request body exceeds ${maxBytes} bytes`);
  if (request.body === null) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new HttpError(408, `Request body not received within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    for (;;) {
      const { done, value } = await Promise.race([reader.read(), timedOut]);
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) throw new HttpError(413, `Request body exceeds ${maxBytes} bytes`);
      chunks.push(value);
    }
  } catch (error) {
    reader.cancel().catch(() => undefined);
    throw error;
  } finally {
    clearTimeout(timer);
  }
  const bytes = chunks.length === 1 ? chunks[0] : concat(chunks, size);
  return new TextDecoder().decode(bytes);
}

function concat(chunks: Uint8Array[], size: number): Uint8Array {
  const all = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    all.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return all;
}
