import type { DependencyContainer } from 'tsyringe';
import type { EraCodec, ResultHints } from '../eras';
import { RequestEndedError } from '../errors';
import type { ElicitationResult } from './elicitationTypes';
import type { Root, SampleRequestOf, SampleResult, SamplingToolOf, ToolLoopResult } from './samplingTypes';
import type { Constructor } from '../metadata';
import type { HttpRequestInfo, Principal, RequestId, Revision } from '../protocol';
import type { ClientCapabilities, Implementation, RequestChannel, RequestScope, Session } from '../session';
import { createLogger } from './Logger';
import type { Logger } from './Logger';

/** A tool the server runs itself during the tool loop of `ctx.sample()`: a DTO-typed input and a function. */
export type SamplingTool<I = any> = SamplingToolOf<I, Context>;

/** What `ctx.sample()` takes: a `sampling/createMessage` request, whose runnable tools get the request's Context. */
export type SampleRequest = SampleRequestOf<Context>;

/** The client features a handler may use; implemented in features/, supplied by the server. */
export interface ClientFeatures {
  sample(ctx: Context, request: SampleRequest, options?: ClientRequestOptions): Promise<SampleResult | ToolLoopResult>;
  elicit(
    ctx: Context,
    message: string,
    target: Constructor | UrlElicitation | SchemaElicitation,
    options?: ClientRequestOptions,
  ): Promise<ElicitationResult<unknown>>;
  roots(ctx: Context, options?: ClientRequestOptions): Promise<Root[]>;
}

/** Options of one question to the client (`ctx.sample`, `ctx.elicit`, `ctx.roots`). */
export interface ClientRequestOptions {
  /**
   * Names the question in a 2026-07-28 `input_required` result (`inputRequests` and the
   * client's `inputResponses` use it). Default: `elicitation-1`, `sampling-1`, `roots-1`, …
   * by kind, in the order asked. Keys must be unique within one request.
   */
  key?: string;
}

/** A form described by a hand-written `requestedSchema` instead of a DTO; the answer stays a plain object. */
export interface SchemaElicitation {
  requestedSchema: Record<string, unknown>;
}

/** URL-mode elicitation: send the user to a page (2025-11-25, `elicitation.url`). */
export interface UrlElicitation {
  url: string;
  /** Identifies this elicitation; a random one is made when left out. */
  elicitationId?: string;
}

/** What the runtime gives a Context; internal. */
export interface ContextInit {
  requestId: RequestId;
  method: string;
  scope: RequestScope;
  container: DependencyContainer;
  channel: RequestChannel;
  client: ClientFeatures;
  /** `params._meta.progressToken` of the request, if it asked for progress. */
  progressToken?: string | number;
  /** The request's params, for middleware around author calls. */
  params: Readonly<Record<string, unknown>>;
  /** Who sent the request, when authentication says. */
  principal?: Principal;
  /** The codec of the request's era: how its results, errors and tasks go on the wire. */
  codec: EraCodec;
  /** The HTTP request that carried it, over HTTP. */
  httpRequest?: HttpRequestInfo;
  /** The client's network address, over HTTP when the host knows it. */
  clientAddress?: string;
}

/**
 * The request being handled, as a handler sees it. The same object serves every protocol
 * era: where a value comes from (session or the request itself) is the runtime's business.
 * Inject it as a method parameter (`ctx: Context`) or a constructor parameter.
 */
export class Context {
  private controller: AbortController | undefined;
  private cancelListeners: Set<(reason: unknown) => void> | undefined;
  private childContainer: DependencyContainer | undefined;
  private logger: Logger | undefined;
  private lastProgress = -Infinity;
  private finished = false;
  /** Set while the call goes on as a task: the request's end no longer ends this Context. */
  private detached = false;
  private handOff: (() => Promise<void>) | undefined;
  private ownCarried: Record<string, unknown> | undefined;
  private hints: ResultHints | undefined;

  /** @internal */
  constructor(private init: ContextInit) {}

  get requestId(): RequestId {
    return this.init.requestId;
  }

  /** The JSON-RPC method being served, e.g. `tools/call`. */
  get method(): string {
    return this.init.method;
  }

  /** The request's params as the client sent them (`_meta` included). */
  get requestParams(): Readonly<Record<string, unknown>> {
    return this.init.params;
  }

  /** Aborted when the client cancels the request or the connection closes. */
  get signal(): AbortSignal {
    return (this.controller ??= new AbortController()).signal;
  }

  /**
   * Calls `listener` once, with the reason, when the request is cancelled (at once, in a
   * microtask, if it was already); returns a function that stops listening. Lighter than
   * `signal` when hearing of the cancellation is all a handler needs: no AbortController is made.
   */
  onCancel(listener: (reason: unknown) => void): () => void {
    if (this.cancelled) {
      const reason = this.controller!.signal.reason;
      queueMicrotask(() => listener(reason));
      return NO_OP;
    }
    (this.cancelListeners ??= new Set()).add(listener);
    return () => void this.cancelListeners?.delete(listener);
  }

  get protocolVersion(): string {
    return this.init.scope.protocolVersion;
  }

  /** @internal What the request's messages can carry: features ask it, never the version. */
  get revision(): Revision {
    return this.init.scope.revision;
  }

  /** @internal The codec of the request's era: its task shapes and protocol errors. */
  get codec(): EraCodec {
    return this.init.codec;
  }

  /** @internal How the result may be cached, as the handler knows (2026-07-28 `ttlMs`, `cacheScope`). */
  get resultHints(): ResultHints | undefined {
    return this.hints;
  }

  /**
   * Says how the result may be cached by the client (2026-07-28 `ttlMs` and `cacheScope` of
   * `resources/read` and the lists): what a caching middleware knows of the result it serves.
   * The era fills in what is left from the server's defaults; older eras carry no hints.
   */
  hintResult(hints: ResultHints): void {
    this.hints = this.hints === undefined ? { ...hints } : Object.assign(this.hints, hints);
  }

  get clientInfo(): Implementation | undefined {
    return this.init.scope.clientInfo;
  }

  get clientCapabilities(): ClientCapabilities {
    return this.init.scope.clientCapabilities;
  }

  /**
   * Who sent the request: subject, scopes, roles and claims of its verified credentials
   * (`@typemcp/auth`), the connection's principal (stdio), or undefined for an anonymous caller.
   */
  get principal(): Principal | undefined {
    return this.init.principal;
  }

  /**
   * The HTTP request that carried this request: its method, URL and headers
   * (`ctx.httpRequest?.headers.get('x-tenant')`). Undefined over stdio and in memory.
   */
  get httpRequest(): HttpRequestInfo | undefined {
    return this.init.httpRequest;
  }

  /**
   * The network address the request came from (the peer of the TCP connection: a proxy's, behind
   * one), over HTTP when the host knows it; undefined over stdio and in memory.
   */
  get clientAddress(): string | undefined {
    return this.init.clientAddress;
  }

  /** The handshake-era session; undefined for stateless requests. */
  get session(): Session | undefined {
    return this.init.scope.session;
  }

  /** The request's own child container, created on first use, with this Context registered. */
  get container(): DependencyContainer {
    if (!this.childContainer) {
      this.childContainer = this.init.container.createChildContainer();
      this.childContainer.register(Context, { useValue: this });
    }
    return this.childContainer;
  }

  /**
   * Log messages to the client (`notifications/message`), filtered by the level the client
   * asked for. `data` is any JSON value; `logger` names the source.
   */
  get log(): Logger {
    return (this.logger ??= createLogger((level, data, logger) => {
      // A cancelled request has no audience left; its logs would only add noise.
      if (!this.cancelled) this.init.channel.log(this.init.scope, level, data, logger, this.init.requestId);
    }));
  }

  /**
   * Reports progress when the client asked for it (a `progressToken`); otherwise does
   * nothing. Values must increase; a value not above the last one, or a call after the
   * response, is dropped.
   */
  progress(value: number, total?: number, message?: string): void {
    const token = this.init.progressToken;
    if (token === undefined || this.finished || this.cancelled || !(value > this.lastProgress)) return;
    this.lastProgress = value;
    const params: Record<string, unknown> = { progressToken: token, progress: value };
    if (total !== undefined) params.total = total;
    if (message !== undefined && this.init.scope.revision.progressMessage) params.message = message;
    this.init.channel.notify('notifications/progress', params, this.init.requestId);
  }

  /**
   * Asks the client's model for a message (`sampling/createMessage`). With `tools` that the
   * server can run (`SamplingTool`s or provider classes with `@Tool` methods), runs the whole
   * tool loop and resolves with the final message and the transcript. Throws
   * ClientCapabilityError when the client cannot sample, SamplingRuleError for a malformed
   * request (nothing is sent), UserRejectedError when the user declines.
   */
  sample(request: SampleRequest & { tools: Array<SamplingTool | Constructor> }, options?: ClientRequestOptions): Promise<ToolLoopResult>;
  sample(request: SampleRequest, options?: ClientRequestOptions): Promise<SampleResult>;
  sample(request: SampleRequest, options?: ClientRequestOptions): Promise<SampleResult | ToolLoopResult> {
    return this.init.client.sample(this, request, options);
  }

  /**
   * Asks the user for input (`elicitation/create`). With a DTO class, a form generated from it;
   * an accepted answer is validated and converted into an instance. With `{ requestedSchema }`,
   * a hand-written form whose answer is checked against it. With `{ url }`, URL mode.
   */
  elicit<T>(message: string, dto: Constructor<T>, options?: ClientRequestOptions): Promise<ElicitationResult<T>>;
  elicit(message: string, url: UrlElicitation, options?: ClientRequestOptions): Promise<ElicitationResult<never>>;
  elicit(message: string, form: SchemaElicitation, options?: ClientRequestOptions): Promise<ElicitationResult<Record<string, unknown>>>;
  elicit(message: string, target: Constructor | UrlElicitation | SchemaElicitation, options?: ClientRequestOptions): Promise<ElicitationResult<unknown>> {
    return this.init.client.elicit(this, message, target, options);
  }

  /** The client's roots (`roots/list`), cached per session until the client says they changed. */
  roots(options?: ClientRequestOptions): Promise<Root[]> {
    return this.init.client.roots(this, options);
  }

  /**
   * Hands the rest of the call over to a task: the client gets the task at once (a
   * `CreateTaskResult`) and the method goes on in the background, its questions to the client
   * now waiting in the task (`input_required`). Resolves once the task exists; rejects when it
   * cannot be created (the caller's limit of tasks). Only in a tool declared with
   * `taskStart: 'continueAsTask'` whose call may become a task; anywhere else it does nothing
   * and the call simply goes on. What the method asked before it is asked within the call (a
   * 2026-07-28 `input_required` round, or a request on the call's stream).
   */
  continueAsTask(): Promise<void> {
    const handOff = this.handOff;
    this.handOff = undefined;
    return handOff ? handOff() : Promise.resolve();
  }

  /** @internal Offers the hand-off `continueAsTask()` performs. */
  offerHandOff(handOff: (() => Promise<void>) | undefined): void {
    this.handOff = handOff;
  }

  /** @internal The call goes on as a task: messages take `channel`, and the request's end no longer ends this Context. */
  detach(channel: RequestChannel): void {
    this.init = { ...this.init, channel };
    this.detached = true;
  }

  /** @internal The task the call went on as has ended: nothing may follow. */
  endDetached(): void {
    this.detached = false;
    this.finished = true;
  }

  /**
   * State a handler carries across the rounds of one request. At 2026-07-28 a question to the
   * client ends the round and the handler runs again on the retry: what it put here before
   * asking comes back (JSON values, signed into the `requestState` with the answers, bound to
   * the request and the caller). In the handshake era a request has one round and this starts
   * empty. A relay keeps the state of the server it relays to here.
   */
  get carried(): Record<string, unknown> {
    return this.init.channel.carried ?? (this.ownCarried ??= {});
  }

  /**
   * Asks the client `method` with `params` as given, on behalf of this request, and resolves
   * with its result: a request on the same channel in the handshake era, an `input_required`
   * question at 2026-07-28 (the handler runs again with the answer; `options.key` names it).
   * For relays: `sample`, `elicit` and `roots` check the client's capabilities and shape the
   * answer; this does neither. Refused once the request has been answered.
   */
  requestClient(method: string, params?: Record<string, unknown>, options: ClientRequestOptions = {}): Promise<Record<string, unknown>> {
    if (this.finished) {
      return Promise.reject(new RequestEndedError(`Cannot send "${method}": the request "${this.method}" it belongs to has already been answered`));
    }
    return this.init.channel.request(method, params, { signal: this.signal, relatedRequestId: this.requestId, inputKey: options.key });
  }

  /** @internal Sends a notification on this request's stream (until it is answered or cancelled). */
  notifyClient(method: string, params: Record<string, unknown>): void {
    if (!this.finished && !this.cancelled) this.init.channel.notify(method, params, this.requestId);
  }

  /** @internal Called when the response is about to go out; nothing may follow it. */
  finish(): void {
    if (!this.detached) this.finished = true;
  }

  /**
   * True once the request was cancelled (by the client, a closed connection or `cancel`); lighter
   * than reading `signal`, which makes an AbortController the first time.
   */
  get cancelled(): boolean {
    return this.controller?.signal.aborted ?? false;
  }

  /**
   * Aborts `signal` with `reason`, as a client's cancellation would (a signal first read after
   * this is already aborted); the request is still answered with what its handler or a
   * middleware returns. For middleware that stops work it no longer wants (a timeout).
   */
  cancel(reason: unknown): void {
    (this.controller ??= new AbortController()).abort(reason);
    const listeners = this.cancelListeners;
    this.cancelListeners = undefined;
    for (const listener of listeners ?? []) listener(reason);
  }

  /**
   * @internal The same request as served within it, with `params` of its own and the providers
   * of `container`: by a mounted server (`server.mount`, its container, the params in its names)
   * or again by this one (tool search's `call_tool`). Everything else (signal, progress, logging,
   * requests to the client, the answer's state) is this request's.
   */
  within(container: DependencyContainer, params: Readonly<Record<string, unknown>>): Context {
    return new InnerContext(this, this.init, container, params);
  }
}

/** A request served within another: its own container and params, the outer request's state. */
class InnerContext extends Context {
  private ownContainer: DependencyContainer | undefined;

  constructor(
    private readonly outer: Context,
    init: ContextInit,
    private readonly innerContainer: DependencyContainer,
    private readonly params: Readonly<Record<string, unknown>>,
  ) {
    super(init);
  }

  override get requestParams(): Readonly<Record<string, unknown>> {
    return this.params;
  }

  override get container(): DependencyContainer {
    if (!this.ownContainer) {
      this.ownContainer = this.innerContainer.createChildContainer();
      this.ownContainer.register(Context, { useValue: this });
    }
    return this.ownContainer;
  }

  override get signal(): AbortSignal {
    return this.outer.signal;
  }

  override get resultHints(): ResultHints | undefined {
    return this.outer.resultHints;
  }

  override hintResult(hints: ResultHints): void {
    this.outer.hintResult(hints);
  }

  override get log(): Logger {
    return this.outer.log;
  }

  override progress(value: number, total?: number, message?: string): void {
    this.outer.progress(value, total, message);
  }

  override continueAsTask(): Promise<void> {
    return this.outer.continueAsTask();
  }

  override offerHandOff(handOff: (() => Promise<void>) | undefined): void {
    this.outer.offerHandOff(handOff);
  }

  override detach(channel: RequestChannel): void {
    this.outer.detach(channel);
  }

  override endDetached(): void {
    this.outer.endDetached();
  }

  override get carried(): Record<string, unknown> {
    return this.outer.carried;
  }

  override requestClient(method: string, params?: Record<string, unknown>, options?: ClientRequestOptions): Promise<Record<string, unknown>> {
    return this.outer.requestClient(method, params, options);
  }

  override notifyClient(method: string, params: Record<string, unknown>): void {
    this.outer.notifyClient(method, params);
  }

  override finish(): void {
    this.outer.finish();
  }

  override get cancelled(): boolean {
    return this.outer.cancelled;
  }

  override cancel(reason: unknown): void {
    this.outer.cancel(reason);
  }

  override onCancel(listener: (reason: unknown) => void): () => void {
    return this.outer.onCancel(listener);
  }
}

const NO_OP = (): void => undefined;
