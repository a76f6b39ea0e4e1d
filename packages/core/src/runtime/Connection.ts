import type { Principal } from '../access';
import type { SessionRecord } from '../cluster';
import { ErrorCode, InternalError, InvalidParamsError, InvalidRequestError, McpError, MethodNotFoundError, ParseError, withoutStack } from '../errors';
import { classify, clip, featuresOf, negotiateVersion, PendingRequests, quote, reasonText } from '../protocol';
import type {
  JsonRpcErrorObject,
  JsonRpcMessage,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResponse,
  OutgoingRequestOptions,
  RequestId,
} from '../protocol';
import type { DependencyContainer } from 'tsyringe';
import { eraOf, InputRound, Session } from '../session';
import type { ClientCapabilities, Era, EraSource, Implementation, LoggingLevel, ModernSettings, RequestChannel, RequestScope } from '../session';
import type { Transport } from '../protocol';
import { Context } from './Context';
import type { ClientFeatures } from './Context';
import type { Dispatcher } from './Dispatcher';
import type { MethodHandler } from './FeatureHost';
import { passes, RateLimiter } from './Logger';

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
  /** How requests without a handshake (2026-07-28) are served. */
  readonly modern: ModernSettings;
  /**
   * Prefix of the ids of requests sent to clients (`<replica>:`), so a replica that receives
   * the answer knows which replica asked. Numbers when absent.
   */
  readonly requestIdPrefix?: string;
  /** Requests one connection may have in progress; more are refused with -32600. */
  readonly maxRequestsInFlight: number;
  /** Messages one batch may hold; a larger batch is refused whole with -32600. */
  readonly maxBatchSize: number;
  initializeResult(version: string): Record<string, unknown>;
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

/** Where a request's later answer goes. */
type Deliver = (response: JsonRpcResponse | undefined) => void;

interface InFlight {
  ctx: Context | undefined;
  method: string;
  era: Era;
  cancelled: boolean;
}

/**
 * One conversation over one transport: parses and classifies what arrives, runs the
 * handshake, dispatches requests (each in the scope and with the client channel its era
 * gives it), correlates the requests we send, and answers every malformed message with the
 * matching JSON-RPC error while it keeps serving.
 */
export class Connection implements RequestChannel, EraSource {
  readonly session: Session;
  private readonly pending: PendingRequests;
  private readonly logLimiter: RateLimiter;
  /** Diagnostics the client can cause (responses to unknown ids) are rate-limited: clients must not control log volume. */
  private readonly diagnosticLimiter = new RateLimiter(5, 20);
  private suppressedDiagnostics = 0;
  private readonly inFlight = new Map<RequestId, InFlight>();
  /** Handlers still running, cancelled or not: what maxRequestsInFlight bounds. */
  private running = 0;
  /** The server capabilities this session was told of at initialize. */
  declaredCapabilities: Record<string, unknown> = {};
  private inputEnded = false;
  private closed = false;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly host: ConnectionHost,
    private readonly transport: Transport,
    /** The caller of every request, for transports that carry no credentials (stdio, in-memory). */
    private readonly localPrincipal?: Principal,
  ) {
    this.pending = new PendingRequests(host.requestIdPrefix);
    this.session = new Session({ request: (method, params) => this.request(method, params) }, transport.sessionId);
    this.logLimiter = new RateLimiter(host.logRateLimit, host.logRateLimit * 2);
    transport.onmessage = (message) => this.receive(message);
    transport.onclose = () => this.onTransportClosed();
    transport.onerror = (error) => host.reportError('transport error', error);
    transport.oninputend = () => {
      this.inputEnded = true;
      this.closeIfDrained();
    };
  }

  async start(): Promise<void> {
    await this.transport.start();
  }

  /**
   * Serves without a handshake, as if `initialize` had negotiated `protocolVersion` with a
   * client of unknown capabilities: for stateless HTTP, where every request stands alone.
   */
  assumeInitialized(protocolVersion: string): void {
    this.session.protocolVersion = negotiateVersion(protocolVersion);
    this.session.state = 'ready';
    this.session.stateless = true;
    this.declaredCapabilities = this.host.initializeResult(this.session.protocolVersion).capabilities as Record<string, unknown>;
  }

  /**
   * Continues a session another replica opened, from its shared record: as if this connection
   * had run its handshake.
   */
  restore(record: SessionRecord): void {
    const session = this.session;
    session.protocolVersion = negotiateVersion(record.protocolVersion);
    session.clientCapabilities = record.clientCapabilities;
    session.clientInfo = record.clientInfo;
    session.state = record.state;
    session.logLevel = record.logLevel;
    for (const uri of record.subscriptions) session.subscriptions.add(uri);
    this.declaredCapabilities = this.host.initializeResult(session.protocolVersion).capabilities as Record<string, unknown>;
  }

  /** The connection's own channel to its client, as the handshake era uses it. */
  get channel(): RequestChannel {
    return this;
  }

  get modern(): ModernSettings {
    return this.host.modern;
  }

  /** The subject of the message being handled: what binds 2026-07-28 requestState. */
  get principal(): string | undefined {
    return this.callerNow()?.subject;
  }

  private callerNow(): Principal | undefined {
    return this.transport.principal ?? this.localPrincipal;
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
    const { id, result } = this.pending.start(
      method,
      { timeoutMs: options.timeoutMs ?? this.host.requestTimeoutMs, signal: options.signal },
      (abandonedId, reason) => this.notify('notifications/cancelled', { requestId: abandonedId, reason }),
    );
    const message: JsonRpcRequest = params ? { jsonrpc: '2.0', id, method, params } : { jsonrpc: '2.0', id, method };
    this.send(message, options.relatedRequestId);
    return result;
  }

  notify(method: string, params?: Record<string, unknown>, relatedRequestId?: RequestId): void {
    const message: JsonRpcNotification = params ? { jsonrpc: '2.0', method, params } : { jsonrpc: '2.0', method };
    this.send(message, relatedRequestId);
  }

  /** Sends a log message if the scope's level lets it through and the session's budget allows. */
  log(scope: RequestScope, level: LoggingLevel, data: unknown, logger: string | undefined, relatedRequestId?: RequestId, meta?: Record<string, unknown>): void {
    if (!passes(level, scope.logLevel ?? this.host.defaultLogLevel) || !this.logLimiter.take()) return;
    const params: Record<string, unknown> = logger === undefined ? { level, data } : { level, logger, data };
    if (meta) params._meta = meta;
    this.notify('notifications/message', params, relatedRequestId);
  }

  /** Cancels what is in flight, fails what we are waiting for, and closes the transport. */
  close(): Promise<void> {
    return (this.closing ??= (async () => {
      this.cancelInFlight();
      await this.transport.close();
      this.onTransportClosed();
    })());
  }

  /** Entry point for everything the transport delivers. */
  receive(data: unknown): void {
    let value = data;
    if (typeof data === 'string') {
      try {
        value = JSON.parse(data);
      } catch (error) {
        this.send(errorResponse(null, new ParseError(`Parse error: ${(error as Error).message}`).toJSON()));
        return;
      }
    }
    if (Array.isArray(value)) {
      this.receiveBatch(value).catch((error) => this.host.reportError('batch failed', error));
      return;
    }
    // With a deliver callback, an answer that comes later goes to it; what returns is immediate.
    const answer = this.handle(value, this.sendAnswer);
    if (answer && !(answer instanceof Promise)) this.send(answer);
  }

  // Bound once: an asynchronous answer is sent from the handler's own promise reaction. send() never throws.
  private readonly sendAnswer = (response: JsonRpcResponse | undefined): void => {
    if (response) this.send(response);
  };

  private readonly answerFailed = (error: unknown): void => this.host.reportError('request failed', error);

  private async receiveBatch(items: unknown[]): Promise<void> {
    if (items.length > this.host.maxBatchSize) {
      this.send(errorResponse(null, { code: ErrorCode.InvalidRequest, message: `Invalid Request: a batch of ${items.length} messages; at most ${this.host.maxBatchSize} are accepted` }));
      return;
    }
    if (items.length === 0 || !featuresOf(this.session.protocolVersion).batching || this.session.state === 'awaiting-initialize') {
      const why =
        items.length === 0
          ? 'an empty batch'
          : `JSON-RPC batches are not supported in protocol version ${this.session.state === 'awaiting-initialize' ? '(none negotiated yet)' : this.session.protocolVersion}`;
      this.send(errorResponse(null, { code: ErrorCode.InvalidRequest, message: `Invalid Request: ${why}` }));
      return;
    }
    const answers = await Promise.all(items.map((item) => this.handle(item, undefined)));
    const responses = answers.filter((a): a is JsonRpcResponse => a !== undefined);
    if (responses.length > 0) this.send(responses);
  }

  /**
   * Handles one message; returns the response to send, if any. With `deliver` (a message on its
   * own), an answer that comes later goes to it instead of into a returned promise; without
   * (a batch member), it is returned, so the batch can wait for all of them.
   */
  private handle(value: unknown, deliver: Deliver | undefined): JsonRpcResponse | undefined | Promise<JsonRpcResponse | undefined> {
    const classified = classify(value);
    switch (classified.kind) {
      case 'request':
        return this.handleRequest(classified.message, deliver);
      case 'notification':
        this.handleNotification(classified.message);
        return undefined;
      case 'result':
      case 'error':
        if (!this.pending.complete(classified.message)) {
          this.reportThrottled('response to an unknown request', `id ${quote(classified.message.id)}`);
        }
        return undefined;
      case 'invalid':
        return errorResponse(classified.id, classified.error.toJSON());
    }
  }

  private handleRequest(request: JsonRpcRequest, deliver: Deliver | undefined): JsonRpcResponse | undefined | Promise<JsonRpcResponse | undefined> {
    const { id, method } = request;
    if (this.inFlight.has(id)) {
      return errorResponse(id, new InvalidRequestError(`Request id ${quote(id)} is already in use by a request in progress`).toJSON());
    }
    if (this.running >= this.host.maxRequestsInFlight) {
      return errorResponse(id, new InvalidRequestError(`Too many requests in progress (${this.host.maxRequestsInFlight}); wait for some to be answered`).toJSON());
    }
    const params = request.params ?? {};
    const era = eraOf(params);
    if (method === 'initialize' && era.name === 'handshake') {
      if (!deliver) return errorResponse(id, new InvalidRequestError('initialize must not be part of a batch').toJSON());
      return this.initialize(request);
    }
    const refused = era.refusal(this, method, params);
    if (refused !== undefined) return errorResponse(id, refused.toJSON());
    const handler = this.host.dispatcher.handlerFor(method);
    if (!handler) {
      return errorResponse(id, new MethodNotFoundError(`Method not found: ${clip(method)}`).toJSON());
    }
    return this.dispatch(id, method, params, era, handler, deliver);
  }

  /** Runs a handler; answers synchronously when the handler does, so fast requests skip the microtask queue. */
  private dispatch(
    id: RequestId,
    method: string,
    params: Record<string, unknown>,
    era: Era,
    handler: MethodHandler,
    deliver: Deliver | undefined,
  ): JsonRpcResponse | undefined | Promise<JsonRpcResponse | undefined> {
    let prepared: ReturnType<Era['prepare']>;
    try {
      prepared = era.prepare(this, method, params, id);
    } catch (error) {
      return errorResponse(id, this.toErrorObject(error, method, era));
    }
    const ctx = new Context({
      requestId: id,
      method,
      scope: prepared.scope,
      container: this.host.container,
      channel: prepared.channel,
      client: this.host.clientFeatures,
      progressToken: progressTokenOf(params),
      params,
      principal: this.callerNow(),
    });
    const entry: InFlight = { ctx, method, era, cancelled: false };
    this.inFlight.set(id, entry);
    this.running++;
    let result: ReturnType<MethodHandler>;
    try {
      result = this.host.dispatcher.dispatch(handler, method, params, ctx);
    } catch (error) {
      return this.settle(entry, id, undefined, error);
    }
    if (result instanceof Promise) {
      // Without a handshake, the first unanswered question to the client ends the request.
      const answer = prepared.channel instanceof InputRound ? Promise.race([result, prepared.channel.needed]) : result;
      if (deliver) {
        answer.then(
          (value) => this.settleAndDeliver(deliver, entry, id, value as Record<string, unknown>, undefined),
          (error: unknown) => this.settleAndDeliver(deliver, entry, id, undefined, error ?? new Error('rejected')),
        );
        return undefined;
      }
      return answer.then(
        (value) => this.settle(entry, id, value as Record<string, unknown>, undefined),
        (error: unknown) => this.settle(entry, id, undefined, error ?? new Error('rejected')),
      );
    }
    return this.settle(entry, id, result, undefined);
  }

  private settleAndDeliver(deliver: Deliver, entry: InFlight, id: RequestId, result: Record<string, unknown> | undefined, error: unknown): void {
    try {
      deliver(this.settle(entry, id, result, error));
    } catch (failure) {
      this.answerFailed(failure);
    }
  }

  private settle(entry: InFlight, id: RequestId, result: Record<string, unknown> | undefined, error: unknown): JsonRpcResponse | undefined {
    const ctx = entry.ctx!;
    ctx.finish();
    this.running--;
    // A cancelled request already gave its id back; a new request may be using it.
    if (this.inFlight.get(id) === entry) this.inFlight.delete(id);
    // The response is sent after this returns; close only once it has been handed over.
    if (this.inputEnded) setImmediate(() => this.closeIfDrained());
    if (entry.cancelled) return undefined;
    if (error !== undefined) return errorResponse(id, this.toErrorObject(error, entry.method, entry.era));
    if (typeof result !== 'object' || result === null || Array.isArray(result)) {
      // A route or middleware that returned no result object (a forgotten `return`).
      const problem = new Error(`"${entry.method}" produced ${Array.isArray(result) ? 'an array' : String(result)} instead of a result object`);
      return errorResponse(id, this.toErrorObject(problem, entry.method, entry.era));
    }
    if (result.resultType === 'input_required') {
      // Questions still waiting in the handler are dropped with it.
      ctx.cancel(withoutStack(() => new Error('Answered with input_required')));
    }
    return { jsonrpc: '2.0', id, result: entry.era.complete(this, entry.method, result) };
  }

  private initialize(request: JsonRpcRequest): JsonRpcResponse {
    const { id } = request;
    const session = this.session;
    if (session.state !== 'awaiting-initialize') {
      return errorResponse(id, new InvalidRequestError('The session is already initialized').toJSON());
    }
    const params = request.params ?? {};
    const problem = checkInitializeParams(params);
    if (problem) return errorResponse(id, new InvalidParamsError(`Invalid initialize params: ${problem}`).toJSON());

    session.protocolVersion = negotiateVersion(params.protocolVersion);
    session.clientCapabilities = params.capabilities as ClientCapabilities;
    session.clientInfo = params.clientInfo as Implementation;
    session.state = 'initializing';
    const result = this.host.initializeResult(session.protocolVersion);
    this.declaredCapabilities = result.capabilities as Record<string, unknown>;
    session.changed();
    return { jsonrpc: '2.0', id, result };
  }

  private handleNotification(notification: JsonRpcNotification): void {
    switch (notification.method) {
      case 'notifications/initialized':
        if (this.session.state === 'initializing') {
          this.session.state = 'ready';
          this.session.changed();
        }
        return;
      case 'notifications/cancelled': {
        const requestId = notification.params?.requestId as RequestId | undefined;
        const entry = requestId === undefined ? undefined : this.inFlight.get(requestId);
        // initialize cannot be cancelled; unknown or finished ids are ignored.
        if (!entry || entry.method === 'initialize') return;
        entry.cancelled = true;
        // The request's life ends here, whether or not its handler heeds the signal: its id
        // is free again and the transport lets go of it.
        this.inFlight.delete(requestId!);
        this.transport.requestEnded?.(requestId!);
        entry.ctx?.cancel(new Error(reasonText(notification.params?.reason, 'Cancelled by the client')));
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

  private toErrorObject(thrown: unknown, method: string, era: Era): JsonRpcErrorObject {
    const error = era.error(thrown);
    if (error instanceof McpError) return error.toJSON();
    this.host.reportError(`"${method}" failed`, error);
    const message = this.host.debug && error instanceof Error ? `Internal error: ${error.message}` : 'Internal error';
    return new InternalError(message).toJSON();
  }

  private send(message: JsonRpcMessage | JsonRpcMessage[], relatedRequestId?: RequestId): void {
    if (this.closed) return;
    try {
      const sent = this.transport.send(message, relatedRequestId === undefined ? undefined : { relatedRequestId });
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
    if (!this.diagnosticLimiter.take()) {
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
    this.pending.rejectAll();
    this.host.onConnectionClosed(this);
  }

  /** Aborts every request being handled; none of them will be answered. */
  private cancelInFlight(): void {
    for (const entry of this.inFlight.values()) {
      entry.cancelled = true;
      entry.ctx?.cancel(new Error('Connection closed'));
    }
  }
}

function errorResponse(id: RequestId | null, error: JsonRpcErrorObject): JsonRpcResponse {
  return id === null ? { jsonrpc: '2.0', error } : { jsonrpc: '2.0', id, error };
}

function progressTokenOf(params: Record<string, unknown>): string | number | undefined {
  const token = (params._meta as Record<string, unknown> | undefined)?.progressToken;
  return typeof token === 'string' || typeof token === 'number' ? token : undefined;
}

function checkInitializeParams(params: Record<string, unknown>): string | undefined {
  if (typeof params.protocolVersion !== 'string') return '"protocolVersion" must be a string';
  if (typeof params.capabilities !== 'object' || params.capabilities === null || Array.isArray(params.capabilities)) {
    return '"capabilities" must be an object';
  }
  const info = params.clientInfo as Record<string, unknown> | undefined;
  if (typeof info !== 'object' || info === null || typeof info.name !== 'string' || typeof info.version !== 'string') {
    return '"clientInfo" must be an object with string "name" and "version"';
  }
  return undefined;
}
