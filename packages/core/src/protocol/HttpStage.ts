import type { Principal } from './Principal';
import type { HttpRequestInfo } from './Transport';

/**
 * An HTTP request as a stage reads it, and what the stages before it learned of it. The same
 * object goes through every stage of one request.
 */
export interface HttpStageRequest extends HttpRequestInfo {
  /** The path of the URL, without its query: `/mcp`, `/.well-known/oauth-authorization-server`. */
  readonly pathname: string;
  /**
   * The path the handler serves MCP at (its `path` option; `/mcp` under `listen`), or undefined
   * when it serves any path it is reached at.
   */
  readonly endpointPath?: string;
  /** The client's network address, when the host knows it. */
  readonly clientAddress: string | undefined;
  /**
   * Who sent the request: set by the `authenticate` stage (undefined before it, and for an
   * anonymous caller). A stage after it may replace it, and what is set here is the principal
   * the request is served with.
   */
  principal: Principal | undefined;
  /** A body a framework already parsed (Express, Fastify); undefined otherwise. */
  readonly parsedBody: unknown;
  /**
   * The body as UTF-8 text, within the endpoint's limits (`maxBodyBytes`: 413, `bodyTimeoutMs`:
   * 408). Read once: later calls, and the core's `body` stage, get the same text.
   */
  readBody(): Promise<string>;
}

/** An answer a stage gives: it is sent as it is, and no later stage runs. */
export interface HttpStageReply {
  /** 200 to 599. */
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
}

/**
 * A step a plugin adds to the server's HTTP handlers (`host.httpStage(stage)`): placed just
 * before or just after a named stage, the core's or another plugin's. `handle` answers the
 * request (a reply), or passes it on (undefined). What it throws is answered as the core's
 * stages are: `AccessDeniedError` with the authentication's challenge, `RateLimitedError` 429
 * with `Retry-After`, `UnavailableError` 503 with `Retry-After`, anything else 500 (and reported).
 */
export interface HttpStage {
  /** Unique among the server's HTTP stages; later stages may be placed relative to it. */
  readonly name: string;
  /** The stage this one runs just before. */
  readonly before?: string;
  /** The stage this one runs just after. */
  readonly after?: string;
  handle(request: HttpStageRequest): HttpStageReply | undefined | Promise<HttpStageReply | undefined>;
}
