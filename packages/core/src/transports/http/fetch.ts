import type { Principal } from '../../protocol';
import type { HttpReply, SseSink } from './HttpReply';
import { fromFetchRequest } from './HttpRequest';
import type { FetchRequest } from './HttpRequest';
import { StreamableHttp } from './StreamableHttp';
import type { HttpEndpointOptions, HttpServerHost } from './endpoint';

/**
 * The options of `server.fetchHandler()`: an HTTP endpoint on a Fetch API runtime (Workers,
 * Deno, Bun, Hono).
 */
export interface FetchHandlerOptions extends HttpEndpointOptions {
  /**
   * Who sent a request, as the application's own authentication knows it: a principal, or just
   * a subject (a user or client id). Used when the server has no authentication plugin. A
   * session and a 2026-07-28 `requestState` are bound to the subject: another one is refused.
   */
  principal?: (request: Request) => Principal | string | undefined | Promise<Principal | string | undefined>;
}

/**
 * A Fetch API handler: `(request) => Promise<Response>`. Further arguments are ignored, so it
 * is the `fetch` of a Cloudflare Worker, `Bun.serve({ fetch })`, `Deno.serve(handler)`, or
 * `(c) => handler(c.req.raw)` in Hono.
 */
export interface FetchHandler {
  (request: Request, ...ignored: unknown[]): Promise<Response>;
  /** Stops taking requests, lets in-flight ones finish (up to `graceMs`), then closes every session. */
  close(graceMs?: number): Promise<void>;
}

/** Hop-by-hop: a `Response` leaves the connection to its host. */
const CONNECTION_HEADER = 'connection';

/**
 * The fetch adapter of the HTTP core: a `Request` is read as it is, the core's reply becomes a
 * `Response` (an event stream becomes a `ReadableStream` body). It has no behaviour of its own.
 */
export function createFetchHandler(host: HttpServerHost, options: FetchHandlerOptions = {}): FetchHandler {
  const { principal, ...endpoint } = options;
  const core = new StreamableHttp(host, {
    ...endpoint,
    principal: principal && ((incoming) => principal((incoming as FetchRequest).request)),
  });
  const handler = (async (request: Request) => toResponse(await core.handle(fromFetchRequest(request)))) as FetchHandler;
  handler.close = (graceMs) => core.close(graceMs);
  return handler;
}

function toResponse(reply: HttpReply): Response {
  const { status, body } = reply;
  if (body === undefined || typeof body === 'string') return new Response(body ?? null, { status, headers: reply.headers });
  const { [CONNECTION_HEADER]: _hopByHop, ...headers } = reply.headers;
  const encoder = new TextEncoder();
  let sink: SseSink | undefined;
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      let ended = false;
      sink = {
        write(chunk) {
          if (!ended) controller.enqueue(encoder.encode(chunk));
        },
        end() {
          if (ended) return;
          ended = true;
          controller.close();
        },
      };
      body.open(sink);
    },
    cancel() {
      body.close(sink);
    },
  });
  return new Response(stream, { status, headers });
}
