import type { Authentication } from '../../access';
import type { EventStore, SessionRecord } from '../../cluster';
import type { HttpStage, JsonRpcMessage, JsonRpcRequest, JsonRpcResponse, MessageInfo, Principal, Transport } from '../../protocol';
import type { Session } from '../../session';
import type { Exchange, RefusalHead } from './Exchange';
import type { HttpReply } from './HttpReply';
import type { IncomingRequest } from './HttpRequest';
import type { HeaderParam } from './mirroredHeaders';
import type { HttpSecurityOptions } from './security';
import type { ClusterMember } from './SharedSessions';

/** Where the messages of a request served alone go (see HttpServerHost.serveAlone). */
export interface AloneExchange {
  relate(message: JsonRpcMessage): void;
  started(cancel: (reason: Error) => void): void;
}

/** The kinds of SSE streams observers hear of. */
export type StreamKind = 'request' | 'session' | 'legacy';

/** What the HTTP side needs of a server. */
export interface HttpServerHost {
  /**
   * Serves one transport; resolves with its session (`state` tells whether `initialize`
   * succeeded). `restore` continues a session another replica opened.
   */
  connect(transport: Transport, options?: { assumeProtocolVersion?: string; restore?: SessionRecord }): Promise<Session>;
  /** Serves one request with no session (2026-07-28): its notifications go to `exchange`. */
  serveAlone(request: JsonRpcRequest, info: MessageInfo, exchange: AloneExchange): JsonRpcResponse | undefined | Promise<JsonRpcResponse | undefined>;
  /** The arguments of a tool that its 2026-07-28 requests mirror in `Mcp-Param-*` headers. */
  headerParams(toolName: string): readonly HeaderParam[];
  /** How requests are authenticated, when a plugin provides it. */
  readonly authentication?: Authentication;
  /** The cluster this server is a replica of, when it has one: sessions are shared. */
  readonly cluster?: ClusterMember;
  /** Reports a failure nobody is answered about (to stderr or the server's logger). */
  reportError(what: string, error: unknown): void;
  /** Whether the server can serve now, for `readinessPath`. */
  readiness(): Readiness;
  /** The stages plugins added to HTTP handlers, in the order added; a new array each time one is added. */
  readonly httpStages?: readonly HttpStage[];
  /** Who hears streams open and close. */
  readonly observers: {
    readonly active: boolean;
    streamOpened(stream: { streamId: string; kind: StreamKind; sessionId: string | undefined }): void;
    streamClosed(stream: { streamId: string; kind: StreamKind; sessionId: string | undefined }): void;
  };
}

/** Whether a replica can serve now, and each plugin's check (`server.readiness()`). */
export interface Readiness {
  readonly ready: boolean;
  readonly checks: Readonly<Record<string, boolean>>;
}

/** The options of an HTTP endpoint, whatever the host it runs on. */
export interface HttpEndpointOptions extends HttpSecurityOptions {
  /** Serve MCP only at this path (others get 404). Default: any path the handler is mounted on. */
  path?: string;
  /**
   * A GET (or HEAD) on this path answers whether this replica can serve, for load balancers:
   * 200 `{"ready":true,"checks":{…}}`, or 503 with `Retry-After` when a plugin's check fails
   * (a store that does not answer) or the server is closing. Answered before the Host and
   * Origin checks and authentication: it tells only the names of the checks. Default: none.
   */
  readinessPath?: string;
  /** No sessions: every POST is served on its own (no GET stream, no server-to-client requests). */
  stateless?: boolean;
  /**
   * The 2024-11-05 HTTP+SSE transport beside Streamable HTTP, for older clients. Default
   * `{ ssePath: '/sse', messagesPath: '/messages' }`; `false` turns it off.
   */
  legacySse?: { ssePath?: string; messagesPath?: string } | false;
  /** Largest request body accepted, in bytes (default 4 MiB); larger ones get 413. */
  maxBodyBytes?: number;
  /** Time allowed to receive a request body (default 30 s); slower uploads get 408. */
  bodyTimeoutMs?: number;
  /** Sessions with no request for this long are closed (default 30 min). */
  sessionIdleTimeoutMs?: number;
  /**
   * Most sessions kept at once (default 1000). A new session past the cap closes the one idle
   * the longest; when every session has a request in progress, `initialize` gets 503.
   */
  maxSessions?: number;
  /**
   * Where SSE events are kept for `Last-Event-ID` resumption (default: in memory, or the
   * cluster's store); `false` turns resumption off.
   */
  eventStore?: EventStore | false;
  /**
   * Protocol 2026-07-28: an SSE comment is written this often on a response stream (default
   * 15 s), so a quiet `subscriptions/listen` stream survives proxies and client idle timeouts.
   */
  keepAliveMs?: number;
}

/** The core's own option: who sent a request, from the request the adapter made. */
export interface StreamableHttpOptions extends HttpEndpointOptions {
  principal?: (request: IncomingRequest) => Principal | string | undefined | Promise<Principal | string | undefined>;
}

/** What the stages of one HTTP handler share: its server, its settings, and what it counts. */
export interface Endpoint {
  readonly host: HttpServerHost;
  /** True once the handler closes: new requests get 503. */
  readonly closing: boolean;
  /** Protocol 2026-07-28: how often an SSE comment is written on a response stream. */
  readonly keepAliveMs: number;
  /** The status and headers of an answer that refuses the caller (401 or 403, with the challenge). */
  readonly refusal: RefusalHead;
  /** The reply of an exchange, counted in flight until its last answer was written (what close() waits for). */
  answer(exchange: Exchange): Promise<HttpReply>;
  /** Tells the server's observers that a stream opened or closed. */
  streamEvent(streamId: string, kind: StreamKind, sessionId: string | undefined, opened: boolean): void;
}
