import type { AuthChallenge, Authentication } from '../../access';
import { AccessDeniedError, DefinitionError, ErrorCode, McpError, UnavailableError } from '../../errors';
import { isModernBatch, isSessionless, sessionlessVersion, statelessVersion } from '../../eras';
import { quote } from '../../protocol';
import type { JsonRpcMessage, JsonRpcRequest, JsonRpcResponse, MessageInfo, Principal, RequestId, Transport } from '../../protocol';
import { InMemoryEventStore } from '../../cluster';
import type { EventStore, SessionRecord } from '../../cluster';
import type { Session } from '../../session';
import { Exchange } from './Exchange';
import type { RefusalHead } from './Exchange';
import { errorReply, HttpError, jsonReply, NO_HEADERS } from './HttpReply';
import type { HttpReply } from './HttpReply';
import { pathOf } from './HttpRequest';
import type { IncomingRequest } from './HttpRequest';
import { HttpSessionTransport } from './HttpSessionTransport';
import { LegacySseSessions } from './LegacySseSessions';
import { checkMirroredHeaders, statusOfError } from './mirroredHeaders';
import type { HeaderParam } from './mirroredHeaders';
import { checkRequestOrigin } from './security';
import type { HttpSecurityOptions } from './security';
import { SharedSessions } from './SharedSessions';
import type { ClusterMember } from './SharedSessions';

/** Where the messages of a request served alone go (see HttpServerHost.serveAlone). */
export interface AloneExchange {
  relate(message: JsonRpcMessage): void;
  started(cancel: (reason: Error) => void): void;
}

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
  /** Who hears streams open and close. */
  readonly observers: {
    readonly active: boolean;
    streamOpened(stream: { streamId: string; kind: 'request' | 'session' | 'legacy'; sessionId: string | undefined }): void;
    streamClosed(stream: { streamId: string; kind: 'request' | 'session' | 'legacy'; sessionId: string | undefined }): void;
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

type Message = Record<string, unknown>;

/** An HTTP field value a host writes: tab, visible ASCII, space and obs-text, no control characters. */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * Streamable HTTP, written once on the Fetch API's terms and served by the fetch and Node
 * adapters. A request goes through named stages: check its host and origin, authenticate it,
 * read its body within the limits, route it by era and method (a session's POST, GET or
 * DELETE; a 2026-07-28 request alone; the legacy HTTP+SSE transport), and answer with a reply
 * (JSON, or an event stream the adapter writes as it comes).
 */
export class StreamableHttp {
  private readonly sessions = new Map<string, HttpSessionTransport>();
  private readonly cluster: ClusterMember | undefined;
  private readonly eventStore: EventStore | undefined;
  private readonly maxBodyBytes: number;
  private readonly bodyTimeoutMs: number;
  private readonly idleMs: number;
  private readonly keepAliveMs: number;
  private readonly maxSessions: number;
  private readonly legacy: LegacySseSessions | undefined;
  /** The Host and Origin lists, as given when the handler was made. */
  private readonly security: HttpSecurityOptions;
  private readonly shared: SharedSessions | undefined;
  private sharedReady: boolean;
  private sweeper: ReturnType<typeof setInterval> | undefined;
  private closing = false;
  /** Requests being handled, and POST answers still being written: what close() waits for. */
  private inFlight = 0;

  constructor(
    private readonly host: HttpServerHost,
    private readonly options: StreamableHttpOptions = {},
  ) {
    this.cluster = options.stateless ? undefined : host.cluster;
    this.eventStore = options.eventStore === false ? undefined : (options.eventStore ?? this.cluster?.options.events ?? new InMemoryEventStore());
    this.security = {
      allowedHosts: Array.isArray(options.allowedHosts) ? [...options.allowedHosts] : options.allowedHosts,
      allowedOrigins: Array.isArray(options.allowedOrigins) ? [...options.allowedOrigins] : options.allowedOrigins,
    };
    this.maxBodyBytes = options.maxBodyBytes ?? 4 * 1024 * 1024;
    this.bodyTimeoutMs = options.bodyTimeoutMs ?? 30_000;
    this.idleMs = options.sessionIdleTimeoutMs ?? 30 * 60_000;
    this.keepAliveMs = options.keepAliveMs ?? 15_000;
    this.maxSessions = options.maxSessions ?? 1000;
    if (!(Number.isInteger(this.maxSessions) && this.maxSessions > 0)) {
      throw new DefinitionError('INVALID_OPTION', `maxSessions must be a positive integer, not ${String(options.maxSessions)}`);
    }
    if (!(Number.isInteger(this.keepAliveMs) && this.keepAliveMs > 0)) {
      throw new DefinitionError('INVALID_OPTION', `keepAliveMs must be a positive integer of milliseconds, not ${String(options.keepAliveMs)}`);
    }
    this.legacy = options.legacySse === false ? undefined : new LegacySseSessions(host, options.legacySse ?? {}, (streamId, opened) => this.streamEvent(streamId, 'legacy', streamId, opened));
    this.shared =
      this.cluster &&
      new SharedSessions(
        this.cluster,
        this.sessions,
        this.idleMs,
        async (record) => {
          this.makeRoomForSession();
          const transport = this.sessionTransport(record.id, record.owner);
          return { transport, session: await host.connect(transport, { restore: record }) };
        },
        this.cluster.reportError,
      );
    this.sharedReady = this.shared === undefined;
  }

  /** Answers one request. Never rejects: every failure is an answer. */
  async handle(request: IncomingRequest): Promise<HttpReply> {
    this.inFlight++;
    try {
      this.sweepLater();
      const pathname = pathOf(request.url);
      // First: a load balancer asks it of a replica that may be closing or cut off from its stores.
      if (pathname === this.options.readinessPath && (request.method === 'GET' || request.method === 'HEAD')) return this.readinessReply();
      if (this.closing) throw new HttpError(503, 'Server is shutting down');
      if (!this.sharedReady) {
        await this.shared!.ready;
        this.sharedReady = true;
      }
      const document = request.method === 'GET' ? this.host.authentication?.documents?.get(pathname) : undefined;
      if (document) return documentReply(document);
      const refused = checkRequestOrigin(request, this.security);
      if (refused) throw new HttpError(403, `Forbidden: ${refused}`);
      const legacy = this.legacy?.owns(pathname) ? this.legacy : undefined;
      if (!legacy && this.options.path !== undefined && pathname !== this.options.path) throw new HttpError(404, `Not found: ${pathname}`);
      const principal = await this.authenticate(request);
      if (legacy) return await legacy.handle(request, pathname, () => this.readJson(request), principal);
      switch (request.method) {
        case 'POST':
          return await this.post(request, await this.readJson(request), principal);
        case 'GET':
          return await this.get(request, principal);
        case 'DELETE':
          return await this.remove(request, principal);
        default:
          throw new HttpError(405, `Method ${request.method} not allowed`, -32000, { allow: this.options.stateless ? 'POST' : 'GET, POST, DELETE' });
      }
    } catch (error) {
      if (error instanceof AccessDeniedError) return refusalReply(error, this.refusal(error.toJSON()));
      if (error instanceof UnavailableError) {
        // A store the request needs to be routed (sessions, events) does not answer: try again later.
        this.host.reportError('an HTTP request could not be served', error);
        return errorReply(new HttpError(503, 'Service Unavailable: a store this server needs does not answer; try again later', -32000, { 'retry-after': String(error.retryAfterSec) }));
      }
      if (!(error instanceof HttpError)) this.host.reportError('an HTTP request failed', error);
      return errorReply(error);
    } finally {
      this.inFlight--;
    }
  }

  /** Stops taking requests, lets in-flight ones finish (up to `graceMs`), then closes every session. */
  async close(graceMs = 5_000): Promise<void> {
    this.closing = true;
    clearInterval(this.sweeper);
    const deadline = Date.now() + graceMs;
    while ((this.inFlight > 0 || [...this.sessions.values()].some((s) => s.busy)) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await Promise.all([...this.sessions.values()].map((s) => s.close()));
    this.sessions.clear();
    await this.shared?.close();
    await this.legacy?.close();
  }

  private readinessReply(): HttpReply {
    const reported = this.host.readiness();
    const readiness = this.closing ? { ...reported, ready: false } : reported;
    return jsonReply(readiness.ready ? 200 : 503, readiness, readiness.ready ? { 'cache-control': 'no-store' } : { 'cache-control': 'no-store', 'retry-after': '1' });
  }

  // Stage: authenticate

  /** The caller of a request: from the authentication service, else from `options.principal`. */
  private async authenticate(request: IncomingRequest): Promise<Principal | undefined> {
    const auth = this.host.authentication;
    if (auth) {
      let principal: Principal | undefined;
      try {
        principal = await auth.authenticate(request);
      } catch (error) {
        // The authentication reports its own failures; the client learns only that there was one.
        if (error instanceof AccessDeniedError) throw error;
        if (error instanceof UnavailableError) {
          throw new HttpError(503, 'Service Unavailable: the credentials cannot be checked now; try again later', -32000, { 'retry-after': String(error.retryAfterSec) });
        }
        throw new HttpError(500, 'Internal error', -32603);
      }
      if (principal === undefined && !auth.allowAnonymous) throw new AccessDeniedError('unauthenticated', 'Unauthorized: this server needs a bearer token');
      return principal;
    }
    const named = await this.options.principal?.(request);
    return typeof named === 'string' ? { subject: named, scopes: [], claims: {} } : named;
  }

  /** An access refusal answered alone gets 401 or 403, with the authentication's challenge. */
  private readonly refusal: RefusalHead = (error) => {
    if (error.code !== ErrorCode.AccessDenied) return undefined;
    const { reason, scopes } = (error.data ?? {}) as { reason?: string; scopes?: string[] };
    const auth = this.host.authentication;
    if (!auth) return { status: 403 };
    const status = reason === 'unauthenticated' || reason === 'invalid_token' ? 401 : 403;
    // No credentials: a bare challenge (RFC 6750 §3.1). Only a missing scope is worth a new token
    // (step-up); a role or guard refusal is final and gets none.
    const challenge: AuthChallenge | undefined =
      reason === 'unauthenticated'
        ? { scopes }
        : reason === 'invalid_token' || reason === 'insufficient_scope'
          ? { error: reason, description: error.message, scopes }
          : undefined;
    if (challenge === undefined) return { status };
    try {
      const value = auth.challenge(challenge);
      if (typeof value !== 'string' || !HEADER_VALUE.test(value)) return { status };
      return { status, headers: { 'www-authenticate': value } };
    } catch {
      return { status }; // a challenge that cannot be sent must not cost the answer
    }
  };

  // Stage: read the body

  private async readJson(request: IncomingRequest): Promise<unknown> {
    if (request.parsedBody !== undefined) return request.parsedBody;
    const text = await request.readBody(this.maxBodyBytes, this.bodyTimeoutMs);
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new HttpError(400, `Parse error: ${(error as Error).message}`, -32700);
    }
  }

  // Stage: route by era and method

  private async post(request: IncomingRequest, payload: unknown, principal: Principal | undefined): Promise<HttpReply> {
    const accept = request.headers.get('accept') ?? '';
    if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
      throw new HttpError(406, 'Not Acceptable: the client must accept both application/json and text/event-stream');
    }
    if (!(request.headers.get('content-type') ?? '').includes('application/json')) {
      throw new HttpError(415, 'Unsupported Media Type: the body must be application/json');
    }
    const info: MessageInfo = { principal, clientAddress: request.clientAddress, request };
    const versionHeader = request.headers.get('mcp-protocol-version') ?? undefined;
    if (isModernBatch(versionHeader, payload)) {
      throw new HttpError(400, 'Invalid Request: JSON-RPC batches exist only in protocol 2025-03-26; send each 2026-07-28 request on its own', -32600);
    }
    if (isSessionless(versionHeader, payload)) return this.postAlone(request, payload as Message, info);
    const messages = (Array.isArray(payload) ? payload : [payload]) as Message[];
    const isMessage = (m: Message) => typeof m === 'object' && m !== null && ('method' in m || 'result' in m || 'error' in m);
    if (messages.length === 0 || !messages.every(isMessage)) {
      throw new HttpError(400, 'Invalid Request: expected JSON-RPC messages (each with "method", "result" or "error")', -32600);
    }
    // A request whose id cannot be correlated could never be answered on this POST.
    if (messages.some((m) => 'method' in m && 'id' in m && !isRequestId(m.id))) {
      throw new HttpError(400, 'Invalid Request: a request id must be a string or an integer', -32600);
    }
    if (messages.some((m) => m.method === 'initialize' && !('id' in m))) {
      throw new HttpError(400, 'Invalid Request: initialize must be a request (with an id)', -32600);
    }
    const initialize = messages.some((m) => m.method === 'initialize');
    if (initialize && messages.length > 1) throw new HttpError(400, 'Invalid Request: initialize must be sent alone', -32600);
    const requestIds = messages.filter((m) => 'method' in m && 'id' in m).map((m) => m.id as RequestId);

    if (this.options.stateless) return this.postStateless(request, payload, requestIds, initialize, info);
    if (initialize) return this.initialize(payload, requestIds, info);
    const transport = await this.sessionFor(request, principal);
    versionOf(request);
    // Answers to another replica's requests go there; notifications reach every replica.
    if (this.shared) payload = keepShape(payload, this.shared.dispatch(transport.sessionId!, messages as unknown as JsonRpcMessage[]));
    if (requestIds.length === 0) {
      if (payload !== undefined) transport.deliver(payload, info);
      // What the notifications changed (initialized) is saved before the client may go on elsewhere.
      if (this.shared) await transport.settled();
      return ACCEPTED;
    }
    const busy = requestIds.find((id) => transport.inProgress(id));
    if (busy !== undefined) throw new HttpError(409, `Invalid Request: request id ${quote(busy)} is already in use by a request in progress`, -32600);
    return this.answer(transport.deliverRequests(payload, requestIds, NO_HEADERS, info));
  }

  /** `initialize`: a new session, kept only when the handshake succeeds. */
  private async initialize(payload: unknown, requestIds: RequestId[], info: MessageInfo): Promise<HttpReply> {
    this.makeRoomForSession();
    const sessionId = crypto.randomUUID();
    const transport = this.sessionTransport(sessionId, info.principal?.subject);
    const session = await this.host.connect(transport);
    this.shared?.track(transport, session);
    this.sessions.set(sessionId, transport);
    const exchange = transport.deliverRequests(payload, requestIds, { 'mcp-session-id': sessionId }, info);
    const reply = await this.answer(exchange);
    // A refused initialize leaves no session behind.
    if (session.state === 'awaiting-initialize') {
      this.shared?.forget(sessionId);
      this.sessions.delete(sessionId);
      await transport.close();
    }
    return reply;
  }

  /** A stateless server: every POST on a connection of its own that lives as long as its answer. */
  private async postStateless(request: IncomingRequest, payload: unknown, requestIds: RequestId[], initialize: boolean, info: MessageInfo): Promise<HttpReply> {
    const transport = new HttpSessionTransport(undefined, undefined, undefined, { refusal: this.refusal, oneShot: true });
    await this.host.connect(transport, initialize ? {} : { assumeProtocolVersion: versionOf(request) });
    if (requestIds.length === 0 || request.gone) {
      if (requestIds.length === 0) transport.deliver(payload, info);
      void transport.close();
      return ACCEPTED;
    }
    request.onGone(() => void transport.close());
    // The transport closes itself once the answer is complete.
    return this.answer(transport.deliverRequests(payload, requestIds, NO_HEADERS, info));
  }

  /**
   * A 2026-07-28 request: no session and no connection. Its mirrored headers are checked, then
   * it is served alone, its answer and notifications on this response; the client going away
   * cancels it.
   */
  private postAlone(request: IncomingRequest, message: Message, info: MessageInfo): Promise<HttpReply> | HttpReply {
    const params = (message.params ?? {}) as Record<string, unknown>;
    const method = message.method as string;
    const id = message.id as RequestId | undefined;
    try {
      const bodyVersion = sessionlessVersion(params);
      const tool = method === 'tools/call' && typeof params.name === 'string' ? params.name : undefined;
      checkMirroredHeaders(request, { method, params }, bodyVersion, tool === undefined ? [] : this.host.headerParams(tool));
    } catch (error) {
      if (!(error instanceof McpError)) throw error;
      return jsonReply(statusOfError(error.code), id === undefined ? { jsonrpc: '2.0', error: error.toJSON() } : { jsonrpc: '2.0', id, error: error.toJSON() });
    }
    // 2026-07-28 defines no client notifications over HTTP (closing a stream cancels).
    if (id === undefined || request.gone) return ACCEPTED;
    let cancel: ((reason: Error) => void) | undefined;
    const exchange = new Exchange([id], false, {
      headers: NO_BUFFERING,
      eventStore: undefined,
      streamPrefix: 'stateless.',
      answerStatus: statusOfError,
      keepAliveMs: this.keepAliveMs,
      refusal: this.refusal,
      onStream: this.host.observers.active ? (streamId, opened) => this.streamEvent(streamId, 'request', undefined, opened) : undefined,
      onGone: () => cancel?.(new Error('Connection closed')),
    });
    request.onGone(() => {
      cancel?.(new Error('Connection closed'));
      exchange.abort();
    });
    const answer = this.host.serveAlone(message as unknown as JsonRpcRequest, info, {
      relate: (notification) => exchange.relate(notification),
      started: (cancelRequest) => (cancel = cancelRequest),
    });
    const answered = (response: JsonRpcResponse | undefined) => (response === undefined ? exchange.drop(id) : exchange.answer(response));
    if (answer instanceof Promise) answer.then(answered, (error) => this.host.reportError('a request failed', error));
    else answered(answer);
    return this.answer(exchange);
  }

  /** The reply of an exchange, counted in flight until its last answer was written. */
  private answer(exchange: Exchange): Promise<HttpReply> {
    if (!exchange.isDone) {
      this.inFlight++;
      void exchange.done.then(() => this.inFlight--);
    }
    return exchange.reply;
  }

  private async get(request: IncomingRequest, principal: Principal | undefined): Promise<HttpReply> {
    if (this.options.stateless) {
      throw new HttpError(405, 'Method Not Allowed: a stateless server has no stream for messages outside requests', -32000, { allow: 'POST' });
    }
    if (!(request.headers.get('accept') ?? '').includes('text/event-stream')) {
      throw new HttpError(406, 'Not Acceptable: the client must accept text/event-stream');
    }
    const transport = await this.sessionFor(request, principal);
    const headers = { 'mcp-session-id': transport.sessionId! };
    const lastEventId = request.headers.get('last-event-id');
    let reply: HttpReply | undefined;
    if (lastEventId !== null && lastEventId !== '') {
      reply = await transport.resume(lastEventId, headers);
      if (!reply) throw new HttpError(404, `Unknown or expired Last-Event-ID ${JSON.stringify(lastEventId)}`);
    } else {
      reply = transport.openStandalone(headers);
      if (!reply) throw new HttpError(409, 'Conflict: this session already has an open stream');
    }
    // The session's stream is where it was opened last: other replicas end theirs.
    if (this.shared && transport.hasStream) this.shared.streamOpened(transport.sessionId!, transport.streamId!);
    return reply;
  }

  private async remove(request: IncomingRequest, principal: Principal | undefined): Promise<HttpReply> {
    if (this.options.stateless) throw new HttpError(405, 'Method Not Allowed: a stateless server has no sessions', -32000, { allow: 'POST' });
    const transport = await this.sessionFor(request, principal);
    if (this.shared) await this.shared.end(transport.sessionId!);
    this.sessions.delete(transport.sessionId!);
    await transport.close();
    return { status: 200, headers: NO_HEADERS };
  }

  // Sessions

  private sessionTransport(sessionId: string, owner: string | undefined): HttpSessionTransport {
    const shared = this.shared;
    return new HttpSessionTransport(sessionId, this.eventStore, () => this.sessions.delete(sessionId), {
      refusal: this.refusal,
      owner,
      sharedStream: shared && this.eventStore ? { recorded: (streamId) => shared.streamRecorded(sessionId, streamId) } : undefined,
      onStream: this.host.observers.active ? (streamId, kind, opened) => this.streamEvent(streamId, kind, sessionId, opened) : undefined,
    });
  }

  private async sessionFor(request: IncomingRequest, principal: Principal | undefined): Promise<HttpSessionTransport> {
    const id = request.headers.get('mcp-session-id');
    if (id === null || id === '') throw new HttpError(400, 'Bad Request: Mcp-Session-Id header is required');
    const transport = this.shared ? await this.shared.find(id) : this.sessions.get(id);
    if (!transport) throw new HttpError(404, 'Session not found: it never existed, ended or expired; initialize a new one');
    // A session id is no credential: only the subject that opened the session may use it.
    const owner = transport.owner;
    if (!transport.admits(principal?.subject)) throw new HttpError(403, 'Forbidden: this session belongs to another principal');
    if (this.shared && transport.owner !== owner) await this.shared.saveCopy(id);
    return transport;
  }

  /** At the cap, closes the session idle the longest; 503 when none is idle. */
  private makeRoomForSession(): void {
    if (this.sessions.size < this.maxSessions) return;
    let oldest: [string, HttpSessionTransport] | undefined;
    for (const entry of this.sessions) {
      if (!entry[1].busy && (!oldest || entry[1].lastActivity < oldest[1].lastActivity)) oldest = entry;
    }
    if (!oldest) throw new HttpError(503, `Service Unavailable: ${this.maxSessions} sessions are busy; try again later`);
    if (this.shared) return this.shared.forget(oldest[0]); // only this replica's copy: the session goes on elsewhere
    this.sessions.delete(oldest[0]);
    void oldest[1].close();
  }

  /**
   * Starts the sweeper of idle sessions at the first request, not before: a timer must not
   * start where the handler is made (a Worker's global scope).
   */
  private sweepLater(): void {
    if (this.sweeper !== undefined || this.options.stateless) return;
    this.sweeper = setInterval(() => this.sweep(), Math.min(this.idleMs, 60_000));
    (this.sweeper as { unref?: () => void }).unref?.();
  }

  private sweep(): void {
    const now = Date.now();
    for (const [id, transport] of this.sessions) {
      if (transport.busy || now - transport.lastActivity <= this.idleMs) continue;
      if (!this.shared) {
        this.sessions.delete(id);
        void transport.close();
      } else if (!transport.hasStream) {
        this.shared.forget(id); // idle here; the record stays for the other replicas
      } else {
        // Quiet here, but its stream is here: it lives as long as the session does anywhere.
        transport.lastActivity = now;
        const shared = this.shared;
        void shared.exists(id).then(
          (exists) => exists || shared.forget(id),
          (error) => this.cluster!.reportError('cluster: reading a session failed', error),
        );
      }
    }
  }

  private streamEvent(streamId: string, kind: 'request' | 'session' | 'legacy', sessionId: string | undefined, opened: boolean): void {
    const observers = this.host.observers;
    if (!observers.active) return;
    if (opened) observers.streamOpened({ streamId, kind, sessionId });
    else observers.streamClosed({ streamId, kind, sessionId });
  }
}

const NO_BUFFERING: Readonly<Record<string, string>> = Object.freeze({ 'x-accel-buffering': 'no' });
const ACCEPTED: HttpReply = Object.freeze({ status: 202, headers: NO_HEADERS });

/** What is left of a POST body once some messages went elsewhere: undefined when none is left. */
function keepShape(payload: unknown, kept: JsonRpcMessage[]): unknown {
  if (Array.isArray(payload)) return kept.length === payload.length ? payload : kept.length > 0 ? kept : undefined;
  return kept.length === 1 ? kept[0] : undefined;
}

function isRequestId(id: unknown): id is RequestId {
  return typeof id === 'string' || Number.isSafeInteger(id);
}

/** The version a request without a session speaks (its header), checked. */
function versionOf(request: IncomingRequest): string {
  const spoken = statelessVersion(request.headers.get('mcp-protocol-version') ?? undefined);
  if (spoken.refused !== undefined) throw new HttpError(400, `Bad Request: ${spoken.refused}`);
  return spoken.version;
}

function documentReply(document: Readonly<Record<string, unknown>>): HttpReply {
  // Metadata is public and read by browser-based clients from other origins.
  return jsonReply(200, document, { 'access-control-allow-origin': '*', 'cache-control': 'public, max-age=3600' });
}

function refusalReply(error: AccessDeniedError, head: ReturnType<RefusalHead>): HttpReply {
  return jsonReply(head?.status ?? 403, { jsonrpc: '2.0', error: error.toJSON() }, head?.headers);
}
