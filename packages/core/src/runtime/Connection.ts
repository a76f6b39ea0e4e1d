import type { SessionRecord } from '../cluster';
import { codecOf, sessionLifecycle } from '../eras';
import type { EraCodec, EraSource, ServerDescription, TaskWire } from '../eras';
import { ErrorCode, InternalError, InvalidRequestError, McpError, ParseError } from '../errors';
import { classify, PendingRequests, quote, reasonText } from '../protocol';
import type {
  JsonRpcMessage,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResponse,
  MessageInfo,
  OutgoingRequestOptions,
  Principal,
  RequestId,
  Transport,
} from '../protocol';
import type { DependencyContainer } from 'tsyringe';
import { Session } from '../session';
import type { LoggingLevel, RequestChannel, RequestScope } from '../session';
import type { ClientFeatures } from './Context';
import type { Dispatcher } from './Dispatcher';
import { passes, RateLimiter } from './Logger';
import type { Observers } from './observers';
import { errorResponse, failed, runRequest } from './runRequest';
import type { Answer, Deliver, Running, Tracker } from './runRequest';
import { nextTurn } from '../platform';

/** What a connection needs from its server. */
export interface ConnectionHost {
  readonly dispatcher: Dispatcher;
  readonly debug: boolean;
  readonly requestTimeoutMs: number;
  readonly container: DependencyContainer;
  readonly clientFeatures: ClientFeatures;
  /** Log threshold for sessions that never sent `logging/setLevel`. */
  readonly defaultLogLevel: LoggingLevel;
  /** Log messages per second a session may receive (bursts of twice that). */
  readonly logRateLimit: number;
  /** What the server says of itself, and how it serves requests without a handshake. */
  readonly server: ServerDescription;
  /**
   * Prefix of the ids of requests sent to clients (`<replica>:`), so a replica that receives
   * the answer knows which replica asked. Numbers when absent.
   */
  readonly requestIdPrefix?: string;
  /** Requests one connection may have in progress; more are refused with -32600. */
  readonly maxRequestsInFlight: number;
  /** Messages one batch may hold; a larger batch is refused whole with -32600. */
  readonly maxBatchSize: number;
  /** What plugins hear of requests and connections. */
  readonly observers: Observers;
  reportError(what: string, error: unknown): void;
  onConnectionClosed(connection: Connection): void;
}

function unencodedError(id: RequestId): JsonRpcResponse {
  return errorResponse(id, new InternalError('Internal error: the response could not be encoded').toJSON());
}

function encodes(message: JsonRpcMessage): boolean {
  try {
    JSON.stringify(message);
    return true;
  } catch {
    return false;
  }
}


/**
 * One conversation over one transport: parses and classifies what arrives, runs the
 * handshake, dispatches requests (each in the scope and with the client channel its era
 * gives it), correlates the requests we send, and answers every malformed message with the
 * matching JSON-RPC error while it keeps serving.
 */
export class Connection implements RequestChannel, EraSource, Tracker {
  readonly session: Session;
  readonly server: ServerDescription;
  /** Requests sent to the client, made at the first one (a stateless POST's connection sends none). */
  private pendingRequests: PendingRequests | undefined;
  private logLimiter: RateLimiter | undefined;
  /** Diagnostics the client can cause (responses to unknown ids) are rate-limited: clients must not control log volume. */
  private diagnosticLimiter: RateLimiter | undefined;
  private suppressedDiagnostics = 0;
  private readonly inFlight = new Map<RequestId, Running>();
  /** Handlers still running, cancelled or not: what maxRequestsInFlight bounds. */
  private running = 0;
  private inputEnded = false;
  private closed = false;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly host: ConnectionHost,
    private readonly transport: Transport,
    /** The caller of every request, for transports that carry no credentials (stdio, in-memory). */
    private readonly localPrincipal?: Principal,
  ) {
    this.server = host.server;
    this.session = new Session({ request: (method, params) => this.request(method, params) }, sessionLifecycle.initialRevision, transport.sessionId);
    transport.onmessage = (message, info) => this.receive(message, info);
    transport.onclose = () => this.onTransportClosed();
    transport.onerror = (error) => host.reportError('transport error', error);
    transport.oninputend = () => {
      this.inputEnded = true;
      this.closeIfDrained();
    };
  }

  async start(): Promise<void> {
    await this.transport.start();
    if (this.lasting && this.host.observers.active) this.host.observers.connectionOpened(this.observed);
  }

  /** A connection that outlives one request (not a stateless HTTP POST's), as observers hear of it. */
  private get lasting(): boolean {
    return !this.session.stateless;
  }

  private get observed(): { sessionId: string | undefined; networkTransport: string | undefined } {
    return { sessionId: this.session.id, networkTransport: this.transport.network };
  }

  /**
   * Serves without a handshake, as if `initialize` had negotiated the version the transport
   * names with a client of unknown capabilities: for stateless HTTP, where every request stands alone.
   */
  assumeInitialized(protocolVersion: string): void {
    sessionLifecycle.assume(this.session, protocolVersion);
    this.session.declaredCapabilities = this.server.capabilities(this.session.revision);
  }

  /**
   * Continues a session another replica opened, from its shared record: as if this connection
   * had run its handshake.
   */
  restore(record: SessionRecord): void {
    sessionLifecycle.restore(this.session, record);
    this.session.declaredCapabilities = this.server.capabilities(this.session.revision);
  }

  /** The connection's own scope: its session, with which handshake-era requests are served. */
  get scope(): RequestScope {
    return this.session;
  }

  /** The connection's own channel to its client, as the handshake era uses it. */
  get channel(): RequestChannel {
    return this;
  }

  /** How tasks are shown to the client of this connection's session. */
  get tasks(): TaskWire {
    return sessionLifecycle.codec.tasks;
  }

  get isOpen(): boolean {
    return !this.closed;
  }

  /** Sends a request to the client and resolves with its result. */
  request(
    method: string,
    params?: Record<string, unknown>,
    options: OutgoingRequestOptions & { relatedRequestId?: RequestId } = {},
  ): Promise<Record<string, unknown>> {
    if (this.closed) return Promise.reject(new McpError(ErrorCode.ConnectionClosed, 'Connection closed'));
    const { id, result } = (this.pendingRequests ??= new PendingRequests(this.host.requestIdPrefix)).start(
      method,
      { timeoutMs: options.timeoutMs ?? this.host.requestTimeoutMs, signal: options.signal },
      (abandonedId, reason) => this.notify('notifications/cancelled', { requestId: abandonedId, reason }),
    );
    const message: JsonRpcRequest = params ? { jsonrpc: '2.0', id, method, params } : { jsonrpc: '2.0', id, method };
    this.send(message, options.relatedRequestId);
    return result;
  }

  /** Sends a notification; `eventKey` names one every replica of a cluster sends (see TransportSendOptions). */
  notify(method: string, params?: Record<string, unknown>, relatedRequestId?: RequestId, eventKey?: string): void {
    const message: JsonRpcNotification = params ? { jsonrpc: '2.0', method, params } : { jsonrpc: '2.0', method };
    this.send(message, relatedRequestId, eventKey);
  }

  /** Sends a log message if the scope's level lets it through and the session's budget allows. */
  log(
    scope: RequestScope,
    level: LoggingLevel,
    data: unknown,
    logger: string | undefined,
    relatedRequestId?: RequestId,
    meta?: Record<string, unknown>,
    eventKey?: string,
  ): void {
    if (!passes(level, scope.logLevel ?? this.host.defaultLogLevel)) return;
    if (!(this.logLimiter ??= new RateLimiter(this.host.logRateLimit, this.host.logRateLimit * 2)).take()) return;
    const params: Record<string, unknown> = logger === undefined ? { level, data } : { level, logger, data };
    if (meta) params._meta = meta;
    this.notify('notifications/message', params, relatedRequestId, eventKey);
  }

  /** Cancels what is in flight, fails what we are waiting for, and closes the transport. */
  close(): Promise<void> {
    return (this.closing ??= (async () => {
      this.cancelInFlight();
      await this.transport.close();
      this.onTransportClosed();
    })());
  }

  /** Entry point for everything the transport delivers, with what it knows of the sender. */
  receive(data: unknown, info?: MessageInfo): void {
    let value = data;
    if (typeof data === 'string') {
      try {
        value = JSON.parse(data);
      } catch (error) {
        this.send(errorResponse(null, new ParseError(`Parse error: ${(error as Error).message}`).toJSON()));
        return;
      }
    }
    // The caller of every request: the transport's, else the connection's (stdio, in-memory).
    const principal = info?.principal ?? this.localPrincipal;
    if (Array.isArray(value)) {
      this.receiveBatch(value, principal, info).catch((error) => this.host.reportError('batch failed', error));
      return;
    }
    // With a deliver callback, an answer that comes later goes to it; what returns is immediate.
    const answer = this.handle(value, principal, info, this.sendAnswer);
    if (answer && !(answer instanceof Promise)) this.send(answer);
  }

  // Bound once: an asynchronous answer is sent from the handler's own promise reaction. send() never throws.
  private readonly sendAnswer = (response: JsonRpcResponse | undefined): void => {
    if (response) this.send(response);
  };

  private async receiveBatch(items: unknown[], principal: Principal | undefined, info: MessageInfo | undefined): Promise<void> {
    if (items.length > this.host.maxBatchSize) {
      this.send(errorResponse(null, { code: ErrorCode.InvalidRequest, message: `Invalid Request: a batch of ${items.length} messages; at most ${this.host.maxBatchSize} are accepted` }));
      return;
    }
    const refused = sessionLifecycle.batchRefusal(this.session, items.length);
    if (refused !== undefined) {
      this.send(errorResponse(null, { code: ErrorCode.InvalidRequest, message: `Invalid Request: ${refused}` }));
      return;
    }
    const answers = await Promise.all(items.map((item) => this.handle(item, principal, info, undefined)));
    const responses = answers.filter((a): a is JsonRpcResponse => a !== undefined);
    if (responses.length > 0) this.send(responses);
  }

  /**
   * Handles one message; returns the response to send, if any. With `deliver` (a message on its
   * own), an answer that comes later goes to it instead of into a returned promise; without
   * (a batch member), it is returned, so the batch can wait for all of them.
   */
  private handle(value: unknown, principal: Principal | undefined, info: MessageInfo | undefined, deliver: Deliver | undefined): Answer {
    const classified = classify(value);
    switch (classified.kind) {
      case 'request': {
        const request = classified.message;
        const params = request.params ?? {};
        const codec = codecOf(params);
        const observers = this.host.observers;
        if (!observers.active) return this.handleRequest(request, params, codec, principal, info, deliver);
        const hear = observers.request({
          id: request.id,
          method: request.method,
          known: request.method === 'initialize' || this.host.dispatcher.routeOf(request.method) !== undefined,
          params,
          protocolVersion: codec.versionOf(this, params),
          // A request of another era than the session's is served without it.
          sessionId: codec === sessionLifecycle.codec && !this.session.stateless ? this.session.id : undefined,
          principal,
          networkTransport: this.transport.network,
          clientAddress: info?.clientAddress,
        });
        return observers.watch(request.method, hear, (heard) => this.handleRequest(request, params, codec, principal, info, heard), deliver);
      }
      case 'notification':
        this.handleNotification(classified.message);
        return undefined;
      case 'result':
      case 'error':
        if (!this.pendingRequests?.complete(classified.message)) {
          this.reportThrottled('response to an unknown request', `id ${quote(classified.message.id)}`);
        }
        return undefined;
      case 'invalid':
        return errorResponse(classified.id, classified.error.toJSON());
    }
  }

  private handleRequest(
    request: JsonRpcRequest,
    params: Record<string, unknown>,
    codec: EraCodec,
    principal: Principal | undefined,
    info: MessageInfo | undefined,
    deliver: Deliver | undefined,
  ): Answer {
    const { id, method } = request;
    if (this.inFlight.has(id)) {
      return errorResponse(id, new InvalidRequestError(`Request id ${quote(id)} is already in use by a request in progress`).toJSON());
    }
    if (this.running >= this.host.maxRequestsInFlight) {
      return errorResponse(id, new InvalidRequestError(`Too many requests in progress (${this.host.maxRequestsInFlight}); wait for some to be answered`).toJSON());
    }
    // The handshake of the session's own era belongs to the connection, not to a route.
    if (method === 'initialize' && codec === sessionLifecycle.codec) {
      if (!deliver) return errorResponse(id, new InvalidRequestError('initialize must not be part of a batch').toJSON());
      return this.initialize(id, params);
    }
    return runRequest(this.host, { source: this, codec, message: request, params, principal, httpRequest: info?.request, clientAddress: info?.clientAddress, tracker: this, deliver });
  }

  /** A request of this connection started: its id is taken until it ends or is cancelled. */
  started(id: RequestId, running: Running): void {
    this.inFlight.set(id, running);
    this.running++;
  }

  ended(id: RequestId, running: Running): void {
    this.running--;
    // A cancelled request already gave its id back; a new request may be using it.
    if (this.inFlight.get(id) === running) this.inFlight.delete(id);
    // The response is sent after this returns; close only once it has been handed over.
    if (this.inputEnded) nextTurn(() => this.closeIfDrained());
  }

  private initialize(id: RequestId, params: Record<string, unknown>): JsonRpcResponse {
    let result: Record<string, unknown>;
    try {
      result = sessionLifecycle.initialize(this.session, params, this.server);
    } catch (error) {
      return failed(this.host, id, error, 'initialize', sessionLifecycle.codec);
    }
    this.session.declaredCapabilities = result.capabilities as Record<string, unknown>;
    this.session.changed();
    return { jsonrpc: '2.0', id, result };
  }

  private handleNotification(notification: JsonRpcNotification): void {
    switch (notification.method) {
      case 'notifications/initialized':
        if (sessionLifecycle.initialized(this.session)) this.session.changed();
        return;
      case 'notifications/cancelled': {
        const requestId = notification.params?.requestId as RequestId | undefined;
        const entry = requestId === undefined ? undefined : this.inFlight.get(requestId);
        // Unknown or finished ids are ignored (initialize is answered at once: it is never in flight).
        if (!entry) return;
        entry.cancelled = true;
        // The request's life ends here, whether or not its handler heeds the signal: its id
        // is free again and the transport lets go of it.
        this.inFlight.delete(requestId!);
        this.transport.requestEnded?.(requestId!);
        entry.ctx.cancel(new Error(reasonText(notification.params?.reason, 'Cancelled by the client')));
        if (this.inputEnded) this.closeIfDrained();
        return;
      }
      default: {
        // Plugins' notifications (roots/list_changed, …); those nobody handles need no answer.
        const params = notification.params ?? {};
        // Client notifications belong to the handshake era (2026-07-28 defines only cancellation).
        this.host.dispatcher.notify(notification.method, params, this.session, (what, error) => this.host.reportError(what, error));
        return;
      }
    }
  }

  private send(message: JsonRpcMessage | JsonRpcMessage[], relatedRequestId?: RequestId, eventKey?: string): void {
    if (this.closed) return;
    try {
      const options = relatedRequestId === undefined && eventKey === undefined ? undefined : { relatedRequestId, eventKey };
      const sent = this.transport.send(message, options);
      if (sent instanceof Promise) sent.catch((error) => this.host.reportError('send failed', error));
    } catch (error) {
      this.host.reportError('send failed', error);
      // A response that could not be encoded (a result too deep for JSON) still answers its
      // request; in a batch, only that one is replaced and the others go out as they were.
      if (!Array.isArray(message)) {
        if ('result' in message) this.send(unencodedError(message.id));
        return;
      }
      const answers = message.map((item) => ('result' in item && !encodes(item) ? unencodedError(item.id) : item));
      if (answers.some((answer, index) => answer !== message[index])) this.send(answers);
    }
  }

  private reportThrottled(what: string, detail: string): void {
    if (!(this.diagnosticLimiter ??= new RateLimiter(5, 20)).take()) {
      this.suppressedDiagnostics++;
      return;
    }
    const suppressed = this.suppressedDiagnostics;
    this.suppressedDiagnostics = 0;
    this.host.reportError(what, new Error(suppressed > 0 ? `${detail} (and ${suppressed} more not reported)` : detail));
  }

  /** At end of input: close once only listen streams (which never end by themselves) are left. */
  private closeIfDrained(): void {
    for (const entry of this.inFlight.values()) if (entry.method !== 'subscriptions/listen') return;
    void this.close();
  }

  private onTransportClosed(): void {
    if (this.closed) return;
    this.closed = true;
    this.session.state = 'closed';
    this.cancelInFlight();
    this.pendingRequests?.rejectAll();
    this.host.onConnectionClosed(this);
    if (this.lasting && this.host.observers.active) this.host.observers.connectionClosed(this.observed);
  }

  /** Aborts every request being handled; none of them will be answered. */
  private cancelInFlight(): void {
    for (const entry of this.inFlight.values()) {
      entry.cancelled = true;
      entry.ctx.cancel(new Error('Connection closed'));
    }
  }
}
