import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthChallenge, Authentication } from '../../access';
import { AccessDeniedError, DefinitionError, ErrorCode, McpError } from '../../errors';
import { quote } from '../../protocol';
import type { JsonRpcMessage, Principal, RequestId } from '../../protocol';
import type { Transport } from '../../protocol';
import { InMemoryEventStore } from '../../cluster';
import type { EventStore, SessionRecord } from '../../cluster';
import type { Session } from '../../session';
import { HttpSessionTransport } from './HttpSessionTransport';
import type { RefusalHead } from './HttpSessionTransport';
import { LegacySseSessions } from './LegacySseSessions';
import { checkMirroredHeaders, statusOfError } from './mirroredHeaders';
import type { HeaderParam } from './mirroredHeaders';
import { HttpError, readBody } from './readBody';
import { isSessionless, sessionlessVersion, statelessVersion } from '../../eras';
import { checkRequestOrigin } from './security';
import { SharedSessions } from './SharedSessions';
import type { ClusterMember } from './SharedSessions';
import type { HttpSecurityOptions } from './security';

/** What the HTTP side needs of a server: a way to serve one transport. */
export interface HttpServerHost {
  /**
   * Serves one transport; resolves with its session (`state` tells whether `initialize`
   * succeeded). `restore` continues a session another replica opened.
   */
  connect(transport: Transport, options?: { assumeProtocolVersion?: string; restore?: SessionRecord }): Promise<Session>;
  /** The arguments of a tool that its 2026-07-28 requests mirror in `Mcp-Param-*` headers. */
  headerParams(toolName: string): readonly HeaderParam[];
  /** How requests are authenticated, when the server has an authentication plugin. */
  readonly authentication?: Authentication;
  /** The cluster this server is a replica of, when it has one: sessions are shared. */
  readonly cluster?: ClusterMember;
}

export interface HttpHandlerOptions extends HttpSecurityOptions {
  /** Serve MCP only at this path (others get 404). Default: any path the handler is mounted on. */
  path?: string;
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

type Message = Record<string, unknown>;

/** An HTTP field value Node writes: tab, visible ASCII, space and obs-text, no control characters. */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

export function createHttpHandler(host: HttpServerHost, options: HttpHandlerOptions = {}): NodeHttpHandler {
  const sessions = new Map<string, HttpSessionTransport>();
  const cluster = options.stateless ? undefined : host.cluster;
  const eventStore = options.eventStore === false ? undefined : (options.eventStore ?? cluster?.options.events ?? new InMemoryEventStore());
  const maxBodyBytes = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const bodyTimeoutMs = options.bodyTimeoutMs ?? 30_000;
  const idleMs = options.sessionIdleTimeoutMs ?? 30 * 60_000;
  const keepAliveMs = options.keepAliveMs ?? 15_000;
  const maxSessions = options.maxSessions ?? 1000;
  if (!(Number.isInteger(maxSessions) && maxSessions > 0)) {
    throw new DefinitionError('INVALID_OPTION', `maxSessions must be a positive integer, not ${String(options.maxSessions)}`);
  }
  if (!(Number.isInteger(keepAliveMs) && keepAliveMs > 0)) {
    throw new DefinitionError('INVALID_OPTION', `keepAliveMs must be a positive integer of milliseconds, not ${String(options.keepAliveMs)}`);
  }
  const legacy = options.legacySse === false ? undefined : new LegacySseSessions(host, options.legacySse ?? {});
  let closing = false;
  let inFlight = 0;

  /** Refusals of answers a session's transport writes; set below. */
  let refusal: RefusalHead;
  const shared =
    cluster &&
    new SharedSessions(
      cluster,
      sessions,
      idleMs,
      async (record) => {
        makeRoomForSession();
        const transport = new HttpSessionTransport(record.id, eventStore, () => sessions.delete(record.id), { refusal, owner: record.owner });
        return { transport, session: await host.connect(transport, { restore: record }) };
      },
      cluster.reportError,
    );
  let sharedReady = shared === undefined;

  const sweeper = setInterval(() => {
    const now = Date.now();
    for (const [id, transport] of sessions) {
      if (transport.busy || now - transport.lastActivity <= idleMs) continue;
      if (!shared) {
        sessions.delete(id);
        void transport.close();
      } else if (!transport.hasStream) {
        shared.forget(id); // idle here; the record stays for the other replicas
      } else {
        // Quiet here, but its stream is here: it lives as long as the session does anywhere.
        transport.lastActivity = now;
        void shared.exists(id).then((exists) => exists || shared.forget(id), (error) => cluster.reportError('cluster: reading a session failed', error));
      }
    }
  }, Math.min(idleMs, 60_000));
  sweeper.unref();

  /** An access refusal answered alone gets 401 or 403, with the authentication's challenge. */
  refusal = (error) => {
    if (error.code !== ErrorCode.AccessDenied) return undefined;
    const { reason, scopes } = (error.data ?? {}) as { reason?: string; scopes?: string[] };
    const auth = host.authentication;
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
      // What node:http would refuse to write (it is not loaded here: startup snapshots preload core).
      if (typeof value !== 'string' || !HEADER_VALUE.test(value)) return { status };
      return { status, headers: { 'www-authenticate': value } };
    } catch {
      return { status }; // a challenge that cannot be sent must not cost the answer
    }
  };

  const handler = (async (req, res, parsedBody) => {
    inFlight++;
    try {
      if (closing) throw new HttpError(503, 'Server is shutting down');
      if (!sharedReady) {
        await shared!.ready;
        sharedReady = true;
      }
      const pathname = (req.url ?? '/').split('?')[0];
      const document = req.method === 'GET' ? host.authentication?.documents?.get(pathname) : undefined;
      if (document) return sendDocument(res, document);
      const refused = checkRequestOrigin(req, options);
      if (refused) throw new HttpError(403, `Forbidden: ${refused}`);
      if (!legacy?.owns(pathname) && options.path !== undefined && pathname !== options.path) throw new HttpError(404, `Not found: ${pathname}`);
      const principal = await callerOf(req);
      if (legacy?.owns(pathname)) return await legacy.handle(req, res, pathname, () => body(req, parsedBody), principal);
      switch (req.method) {
        case 'POST':
          return await post(req, res, await body(req, parsedBody), principal);
        case 'GET':
          return await get(req, res, principal);
        case 'DELETE':
          return await remove(req, res, principal);
        default:
          res.setHeader('allow', options.stateless ? 'POST' : 'GET, POST, DELETE');
          throw new HttpError(405, `Method ${req.method} not allowed`);
      }
    } catch (error) {
      if (error instanceof AccessDeniedError) sendRefusal(res, error, refusal(error.toJSON()));
      else sendError(res, error);
    } finally {
      inFlight--;
    }
  }) as NodeHttpHandler;

  /** The caller of a request: from the authentication plugin, else from `options.principal`. */
  async function callerOf(req: IncomingMessage): Promise<Principal | undefined> {
    const auth = host.authentication;
    if (auth) {
      const principal = await auth.authenticate(req);
      if (principal === undefined && !auth.allowAnonymous) throw new AccessDeniedError('unauthenticated', 'Unauthorized: this server needs a bearer token');
      return principal;
    }
    const named = await options.principal?.(req);
    return typeof named === 'string' ? { subject: named, scopes: [], claims: {} } : named;
  }

  handler.close = async (graceMs = 5_000) => {
    closing = true;
    clearInterval(sweeper);
    const deadline = Date.now() + graceMs;
    while ((inFlight > 0 || [...sessions.values()].some((s) => s.busy)) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await Promise.all([...sessions.values()].map((s) => s.close()));
    sessions.clear();
    await shared?.close();
    await legacy?.close();
  };

  async function body(req: IncomingMessage, parsedBody: unknown): Promise<unknown> {
    if (parsedBody !== undefined) return parsedBody;
    const text = await readBody(req, maxBodyBytes, bodyTimeoutMs);
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new HttpError(400, `Parse error: ${(error as Error).message}`, -32700);
    }
  }

  async function post(req: IncomingMessage, res: ServerResponse, payload: unknown, principal: Principal | undefined): Promise<void> {
    const accept = String(req.headers.accept ?? '');
    if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
      throw new HttpError(406, 'Not Acceptable: the client must accept both application/json and text/event-stream');
    }
    const contentType = String(req.headers['content-type'] ?? '');
    if (!contentType.includes('application/json')) throw new HttpError(415, 'Unsupported Media Type: the body must be application/json');

    if (isSessionless(single(req, 'mcp-protocol-version'), payload)) return postModern(req, res, payload as Message, principal);
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

    let transport: HttpSessionTransport;
    const headers: Record<string, string> = {};
    if (options.stateless) {
      transport = new HttpSessionTransport(undefined, undefined, undefined, { refusal });
      await host.connect(transport, initialize ? {} : { assumeProtocolVersion: protocolVersionOf(req) });
    } else if (initialize) {
      makeRoomForSession();
      const sessionId = randomUUID();
      transport = new HttpSessionTransport(sessionId, eventStore, () => sessions.delete(sessionId), { refusal, owner: principal?.subject });
      const session = await host.connect(transport);
      shared?.track(transport, session);
      sessions.set(sessionId, transport);
      headers['mcp-session-id'] = sessionId;
      await transport.deliverRequests(payload, requestIds, res, headers, { principal });
      // A refused initialize leaves no session behind.
      if (session.state === 'awaiting-initialize') {
        shared?.forget(sessionId);
        sessions.delete(sessionId);
        await transport.close();
      }
      return;
    } else {
      transport = await sessionFor(req, principal);
      protocolVersionOf(req);
      // Answers to another replica's requests go there; notifications reach every replica.
      if (shared) payload = keepShape(payload, shared.dispatch(transport.sessionId!, messages as unknown as JsonRpcMessage[]));
    }

    if (requestIds.length === 0) {
      if (payload !== undefined) transport.deliver(payload, { principal });
      // What the notifications changed (initialized) is saved before the client may go on elsewhere.
      if (shared) await transport.settled();
      res.writeHead(202).end();
      if (options.stateless) void transport.close();
      return;
    }
    const busy = requestIds.find((id) => transport.inProgress(id));
    if (busy !== undefined) {
      throw new HttpError(409, `Invalid Request: request id ${quote(busy)} is already in use by a request in progress`, -32600);
    }
    if (options.stateless && !closeWithResponse(res, transport)) return;
    // Awaited, so close() lets this request finish within its grace period.
    await transport.deliverRequests(payload, requestIds, res, headers, { principal });
  }

  /**
   * A 2026-07-28 request: no session. Its mirrored headers are checked, then it is served on a
   * connection of its own that lives as long as its response (closing it cancels the request).
   */
  async function postModern(req: IncomingMessage, res: ServerResponse, message: Message, principal: Principal | undefined): Promise<void> {
    const params = (message.params ?? {}) as Record<string, unknown>;
    const method = message.method as string;
    const id = message.id as RequestId | undefined;
    try {
      const bodyVersion = sessionlessVersion(params);
      const tool = method === 'tools/call' && typeof params.name === 'string' ? params.name : undefined;
      checkMirroredHeaders(req, { method, params }, bodyVersion, tool === undefined ? [] : host.headerParams(tool));
    } catch (error) {
      if (!(error instanceof McpError)) throw error;
      res.writeHead(statusOfError(error.code), { 'content-type': 'application/json' });
      res.end(JSON.stringify(id === undefined ? { jsonrpc: '2.0', error: error.toJSON() } : { jsonrpc: '2.0', id, error: error.toJSON() }));
      return;
    }
    if (id === undefined) {
      // 2026-07-28 defines no client notifications over HTTP (closing a stream cancels).
      res.writeHead(202).end();
      return;
    }
    const transport = new HttpSessionTransport(undefined, undefined, undefined, { answerStatus: statusOfError, keepAliveMs, refusal });
    await host.connect(transport);
    if (!closeWithResponse(res, transport)) return;
    await transport.deliverRequests(message, [id], res, { 'x-accel-buffering': 'no' }, { principal });
  }

  /**
   * Ties a one-request transport to its HTTP response: closing the response (the client went
   * away, or the answer is complete) closes the transport. False when the response had already
   * closed, so there is nothing to serve.
   */
  function closeWithResponse(res: ServerResponse, transport: HttpSessionTransport): boolean {
    if (res.destroyed || res.writableEnded) {
      void transport.close();
      return false;
    }
    res.on('close', () => void transport.close());
    return true;
  }

  async function get(req: IncomingMessage, res: ServerResponse, principal: Principal | undefined): Promise<void> {
    if (options.stateless) {
      res.setHeader('allow', 'POST');
      throw new HttpError(405, 'Method Not Allowed: a stateless server has no stream for messages outside requests');
    }
    if (!String(req.headers.accept ?? '').includes('text/event-stream')) {
      throw new HttpError(406, 'Not Acceptable: the client must accept text/event-stream');
    }
    const transport = await sessionFor(req, principal);
    const headers = { 'mcp-session-id': transport.sessionId! };
    const lastEventId = req.headers['last-event-id'];
    if (typeof lastEventId === 'string' && lastEventId !== '') {
      if (!(await transport.resume(lastEventId, res, headers))) throw new HttpError(404, `Unknown or expired Last-Event-ID ${JSON.stringify(lastEventId)}`);
    } else if (!transport.openStandalone(res, headers)) {
      throw new HttpError(409, 'Conflict: this session already has an open stream');
    }
    // The session's stream is where it was opened last: other replicas end theirs.
    if (shared && transport.hasStream) shared.streamOpened(transport.sessionId!, transport.streamId!);
  }

  async function remove(req: IncomingMessage, res: ServerResponse, principal: Principal | undefined): Promise<void> {
    if (options.stateless) {
      res.setHeader('allow', 'POST');
      throw new HttpError(405, 'Method Not Allowed: a stateless server has no sessions');
    }
    const transport = await sessionFor(req, principal);
    if (shared) await shared.end(transport.sessionId!);
    sessions.delete(transport.sessionId!);
    await transport.close();
    res.writeHead(200).end();
  }

  /** At the cap, closes the session idle the longest; 503 when none is idle. */
  function makeRoomForSession(): void {
    if (sessions.size < maxSessions) return;
    let oldest: [string, HttpSessionTransport] | undefined;
    for (const entry of sessions) {
      if (!entry[1].busy && (!oldest || entry[1].lastActivity < oldest[1].lastActivity)) oldest = entry;
    }
    if (!oldest) throw new HttpError(503, `Service Unavailable: ${maxSessions} sessions are busy; try again later`);
    if (shared) return shared.forget(oldest[0]); // only this replica's copy: the session goes on elsewhere
    sessions.delete(oldest[0]);
    void oldest[1].close();
  }

  async function sessionFor(req: IncomingMessage, principal: Principal | undefined): Promise<HttpSessionTransport> {
    const id = req.headers['mcp-session-id'];
    if (typeof id !== 'string' || id === '') throw new HttpError(400, 'Bad Request: Mcp-Session-Id header is required');
    const transport = shared ? await shared.find(id) : sessions.get(id);
    if (!transport) throw new HttpError(404, 'Session not found: it never existed, ended or expired; initialize a new one');
    // A session id is no credential: only the subject that opened the session may use it.
    const owner = transport.owner;
    if (!transport.admits(principal?.subject)) throw new HttpError(403, 'Forbidden: this session belongs to another principal');
    if (shared && transport.owner !== owner) await shared.saveCopy(id);
    return transport;
  }

  return handler;
}

/** What is left of a POST body once some messages went elsewhere: undefined when none is left. */
function keepShape(payload: unknown, kept: JsonRpcMessage[]): unknown {
  if (Array.isArray(payload)) return kept.length === payload.length ? payload : kept.length > 0 ? kept : undefined;
  return kept.length === 1 ? kept[0] : undefined;
}

function isRequestId(id: unknown): id is RequestId {
  return typeof id === 'string' || Number.isSafeInteger(id);
}

/** The version a request without a session speaks (its header), checked. */
function protocolVersionOf(req: IncomingMessage): string {
  const spoken = statelessVersion(single(req, 'mcp-protocol-version'));
  if (spoken.refused !== undefined) throw new HttpError(400, `Bad Request: ${spoken.refused}`);
  return spoken.version;
}

/** A header's value; a header sent more than once is as good as absent here. */
function single(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return typeof value === 'string' ? value : undefined;
}

function sendDocument(res: ServerResponse, document: Readonly<Record<string, unknown>>): void {
  // Metadata is public and read by browser-based clients from other origins.
  res.writeHead(200, { 'content-type': 'application/json', 'access-control-allow-origin': '*', 'cache-control': 'public, max-age=3600' });
  res.end(JSON.stringify(document));
}

function sendRefusal(res: ServerResponse, error: AccessDeniedError, head: ReturnType<RefusalHead>): void {
  if (res.headersSent) {
    if (!res.writableEnded) res.end();
    return;
  }
  res.writeHead(head?.status ?? 403, { 'content-type': 'application/json', ...head?.headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: error.toJSON() }));
}

function sendError(res: ServerResponse, error: unknown): void {
  const status = error instanceof HttpError ? error.status : 500;
  const code = error instanceof HttpError ? error.rpcCode : -32603;
  const message = error instanceof HttpError ? error.message : 'Internal error';
  if (res.headersSent) {
    if (!res.writableEnded) res.end();
    return;
  }
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message } }));
}
