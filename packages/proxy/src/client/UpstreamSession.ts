import { Client, ConnectionClosedError, McpRequestError, RequestTimeoutError } from '@typemcp/client';
import type { ClientSendOptions, ClientTransport, JsonObject, ReceivedInfo, ReceivedNotification, RequestOptions } from '@typemcp/client';
import type { RequestId } from '@typemcp/core';
import type { ClientChannel } from './channel';

/** A JSON-RPC error the upstream answered with. */
export class UpstreamError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'UpstreamError';
  }
}

/** The upstream is gone (exited, unreachable, session ended): nothing more will come from it. */
export class UpstreamGoneError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UpstreamGoneError';
  }
}

/** What the server may ask or tell about one request while it runs. */
export interface RequestHandlers {
  /** A question of the server's (sampling, elicitation, roots) made for this request. */
  onRequest?(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>>;
  /**
   * A log message of this request's: one that arrived on the request's own stream (HTTP). Over
   * stdio nothing names the request a log message is about: none reaches a request.
   */
  onNotification?(method: string, params: Record<string, unknown>): void;
  onProgress?(progress: { progress: number; total?: number; message?: string }): void;
}

export interface UpstreamRequestOptions extends RequestHandlers {
  /** A request that stays open for as long as the session (`subscriptions/listen`): it does not keep the process alive. */
  background?: boolean;
  /** Receives the function that cancels the request: the server is told, and what the request holds open is closed. */
  cancelWith?: (cancel: (reason: string) => void) => void;
  /** 2026-07-28: what the request's `_meta` says of the client, over the session's defaults. */
  meta?: Record<string, unknown>;
  headers?: Record<string, string>;
  /**
   * 2026-07-28 over HTTP: the tool arguments mirrored in `Mcp-Param-*` headers. The client
   * mirrors them itself from the upstream's listing (the one the proxy mirrors), so these are
   * what it sends anyway.
   */
  paramHeaders?: Record<string, string>;
  timeoutMs?: number;
}

export interface SessionOptions {
  /** `auto`: 2026-07-28 when the server serves it, else the newest handshake revision it accepts. */
  protocolVersion: string;
  clientInfo: { name: string; version: string };
  /** The capabilities the handshake announces, and each 2026-07-28 request's default. */
  capabilities: Record<string, unknown>;
  timeoutMs: number;
}

/** One request in flight: its handlers, and what settles it. */
class Pending implements RequestHandlers {
  readonly onRequest: RequestHandlers['onRequest'];
  readonly onNotification: RequestHandlers['onNotification'];
  readonly onProgress: RequestHandlers['onProgress'];
  readonly background: boolean;
  readonly timeoutMs: number;
  /** The id the client last sent it with. */
  id: RequestId | undefined;
  progressToken?: string;
  /** Another request that takes questions was in flight as this one started. */
  overlapped = false;
  /** How many requests that take questions had started when this one did (itself included): any later one overlapped it. */
  askersBefore = 0;
  cancelled = false;

  constructor(
    private readonly session: UpstreamSession,
    private readonly method: string,
    options: UpstreamRequestOptions,
  ) {
    this.onRequest = options.onRequest;
    this.onNotification = options.onNotification;
    this.onProgress = options.onProgress;
    this.background = options.background === true;
    this.timeoutMs = options.timeoutMs ?? session.defaultTimeoutMs;
  }

  readonly sentAs = (id: RequestId): void => {
    this.session.track(id, this, this.id);
    this.id = id;
  };

  readonly cancel = (reason: string): void => this.session.cancel(this, reason);

  readonly answered = (result: Record<string, unknown>): Record<string, unknown> => {
    this.session.untrack(this);
    return result;
  };

  readonly failed = (error: unknown): never => {
    this.session.untrack(this);
    throw this.cancelled ? new UpstreamError(-32800, `${this.method} was cancelled`) : this.session.upstreamError(this.method, error, this.timeoutMs);
  };
}

/**
 * One conversation with an upstream MCP server over a channel, through `Client` of
 * @typemcp/client (which agrees on the revision: the `initialize` handshake, or at 2026-07-28
 * `server/discover` and `_meta` on every request). The session adds what a proxy needs: each
 * request's questions, log messages and progress reach that request's client only, and a
 * 2026-07-28 `input_required` comes back to the relay, which asks its own client. Requests
 * resolve with their result or reject with UpstreamError; a channel that closes rejects every
 * request at once with UpstreamGoneError.
 */
export class UpstreamSession {
  /** Notifications and questions that belong to no request of ours (log messages aside). */
  onNotification?: (method: string, params: Record<string, unknown>) => void;
  /**
   * A log message no request in flight takes: `named` when its stream names a request (one
   * that is over, or one that takes no log messages, as the proxy's own); otherwise nothing
   * named one (stdio, the handshake era's GET stream) and nothing can tell whose it is.
   */
  onUnownedLog?: (params: Record<string, unknown>, named: boolean) => void;
  onRequest?: (method: string, params: Record<string, unknown>) => Promise<Record<string, unknown>>;
  /** Called once, when the channel is gone. */
  onclose?: (error: Error) => void;
  private readonly client: Client;
  /** The requests in flight, by the id the client sent each with. */
  private readonly pending = new Map<RequestId, Pending>();
  private readonly byToken = new Map<string, Pending>();
  private nextToken = 1;
  private gone: Error | undefined;
  /** Requests waiting for an answer, but for background ones. */
  private waiting = 0;
  /** Requests that take questions: how many are in flight, and how many ever started. */
  private askersInFlight = 0;
  private askersStarted = 0;

  private constructor(
    private readonly channel: ClientChannel,
    private readonly options: SessionOptions,
  ) {
    this.client = new Client({
      protocolVersion: options.protocolVersion,
      clientInfo: options.clientInfo,
      capabilities: options.capabilities,
      requestTimeoutMs: options.timeoutMs,
      onOtherRequest: (method, params, extra) => this.answer(method, params, extra.relatedRequestId),
      onNotification: (notification, info) => this.heard(notification, info),
    });
    this.client.onClose((error) => {
      if (error) this.lost(error);
    });
  }

  /** Opens the channel and agrees on a revision with the server. */
  static async open(channel: ClientChannel, options: SessionOptions): Promise<UpstreamSession> {
    const session = new UpstreamSession(channel, options);
    // The conversation's first requests are waited for like any other: the channel keeps the process alive meanwhile.
    const transport = new ChannelTransport(channel, () => channel.hold?.(true));
    try {
      await session.client.connect(transport);
    } catch (error) {
      throw session.upstreamError('initialize', error, options.timeoutMs);
    } finally {
      if (session.waiting === 0) channel.hold?.(false);
    }
    return session;
  }

  /** The revision the conversation speaks. */
  get protocolVersion(): string {
    return this.client.protocolVersion;
  }

  get serverCapabilities(): Record<string, unknown> {
    return this.client.serverCapabilities;
  }

  get serverInfo(): { name: string; version: string } {
    return this.client.serverInfo;
  }

  get instructions(): string | undefined {
    return this.client.instructions;
  }

  /** True when the conversation has no handshake (2026-07-28). */
  get modern(): boolean {
    return this.client.stateless;
  }

  /** @internal How long a request waits by default. */
  get defaultTimeoutMs(): number {
    return this.options.timeoutMs;
  }

  get alive(): boolean {
    return this.gone === undefined;
  }

  request(method: string, params: Record<string, unknown> | undefined, options: UpstreamRequestOptions = {}): Promise<Record<string, unknown>> {
    if (this.gone) return Promise.reject(new UpstreamGoneError(this.gone.message));
    const entry = new Pending(this, method, options);
    let meta = options.meta;
    if (options.onProgress) {
      entry.progressToken = `proxy-${this.nextToken++}`;
      this.byToken.set(entry.progressToken, entry);
      meta = meta === undefined ? { progressToken: entry.progressToken } : { ...meta, progressToken: entry.progressToken };
    }
    if (entry.onRequest) {
      // Counted, not searched: every request that takes questions started since this one did was in flight with it.
      entry.overlapped = this.askersInFlight > 0;
      entry.askersBefore = ++this.askersStarted;
      this.askersInFlight++;
    }
    const sent: RequestOptions = { timeoutMs: entry.timeoutMs, returnInputRequired: true, onId: entry.sentAs };
    if (meta !== undefined) sent.meta = meta;
    if (options.headers !== undefined) sent.headers = options.headers;
    if (!entry.background && this.waiting++ === 0) this.channel.hold?.(true);
    options.cancelWith?.(entry.cancel);
    return this.client.request(method, params, sent).then(entry.answered, entry.failed);
  }

  /** @internal A request of the session's is sent (again, after input_required) with `id`. */
  track(id: RequestId, entry: Pending, before: RequestId | undefined): void {
    if (before !== undefined) this.pending.delete(before);
    this.pending.set(id, entry);
  }

  /** @internal A request of the session's settled. */
  untrack(entry: Pending): void {
    if (entry.onRequest && !this.gone) this.askersInFlight--;
    if (entry.id !== undefined && this.pending.get(entry.id) === entry) this.pending.delete(entry.id);
    if (entry.progressToken !== undefined) this.byToken.delete(entry.progressToken);
    if (!entry.background && this.waiting > 0 && --this.waiting === 0) this.channel.hold?.(false);
  }

  /** @internal Cancels a request in flight. */
  cancel(entry: Pending, reason: string): void {
    if (entry.id === undefined || this.pending.get(entry.id) !== entry) return;
    entry.cancelled = true;
    void this.client.cancelRequest(entry.id, reason);
  }

  async notify(method: string, params?: Record<string, unknown>): Promise<void> {
    if (this.gone) return;
    await this.client.notify(method, params);
  }

  async close(): Promise<void> {
    this.lost(new UpstreamGoneError('the connection to the upstream was closed'), false);
    await this.client.close();
  }

  /** The client's error as the proxy words it: the upstream's own JSON-RPC error, a wait that ran out, a connection that is gone. */
  /** @internal */
  upstreamError(method: string, error: unknown, timeoutMs: number): Error {
    if (error instanceof McpRequestError) return new UpstreamError(error.code, error.message.slice(`${error.method} failed with ${error.code}: `.length), error.data);
    if (error instanceof RequestTimeoutError) return new UpstreamError(-32001, `The upstream did not answer ${method} within ${timeoutMs} ms`);
    if (this.gone) return new UpstreamGoneError(this.gone.message);
    if (error instanceof ConnectionClosedError) return new UpstreamGoneError(error.message.replace(/^\S+ could not be sent: /, ''));
    return error instanceof Error ? error : new Error(String(error));
  }

  /** What the upstream tells: a request's progress or log message, or the session's news. */
  private heard({ method, params = {} }: ReceivedNotification, info: ReceivedInfo | undefined): void {
    const related = info?.relatedRequestId;
    if (method === 'notifications/progress') {
      const entry = this.byToken.get(String(params.progressToken));
      // A stream that names a request carries that request's progress only, whatever token it says.
      if (related !== undefined && this.pending.get(related) !== entry) return;
      entry?.onProgress?.({ progress: params.progress as number, total: params.total as number | undefined, message: params.message as string | undefined });
      return;
    }
    if (method !== 'notifications/message') return this.onNotification?.(method, params);
    // Only the request its stream names takes a log message: being the one request in flight says nothing of whose it is.
    const owner = related === undefined ? undefined : this.pending.get(related);
    if (owner?.onNotification) owner.onNotification(method, params);
    else this.onUnownedLog?.(params, related !== undefined);
  }

  /** Answers a question of the server's (but ping, which the client answers): for the request it came with, else as the session does. */
  private async answer(method: string, params: JsonObject, related: RequestId | undefined): Promise<JsonObject> {
    let asker: Pending | undefined;
    if (related !== undefined) {
      // Named: only that request's client is asked; a request that is over takes no questions.
      asker = this.pending.get(related);
      if (!asker) throw new UpstreamError(-32603, 'The request this question belongs to is over');
    } else asker = this.soleAsker();
    const handler = asker?.onRequest ?? this.onRequest;
    if (!handler) throw new UpstreamError(-32601, `This client does not answer ${method}`);
    const result = await handler(method, params);
    // A question of a request that was cancelled meanwhile is not answered: the upstream dropped it.
    if (asker !== undefined && ![...this.pending.values()].includes(asker)) return new Promise<JsonObject>(() => undefined);
    return result;
  }

  /**
   * The request a question that names none belongs to (the handshake era over stdio does not
   * say): the one request in flight that takes questions, and only if it has been alone since
   * it started. With several, or after several (a late question of a request answered meanwhile
   * would otherwise reach the one left), no guess is made: a question must never reach another
   * client.
   */
  private soleAsker(): Pending | undefined {
    let found: Pending | undefined;
    for (const entry of this.pending.values()) {
      if (!entry.onRequest) continue;
      if (found) throw new UpstreamError(-32603, 'The upstream asked a question while several requests were in flight, and this transport cannot tell which one it is for');
      found = entry;
    }
    if (found && (found.overlapped || this.askersStarted > found.askersBefore)) throw new UpstreamError(-32603, 'The upstream asked a question after several requests were in flight, and this transport cannot tell which one it is for');
    return found;
  }

  private lost(error: Error, tell = true): void {
    if (this.gone) return;
    this.gone = error;
    this.pending.clear();
    this.byToken.clear();
    this.askersInFlight = 0;
    if (this.waiting > 0) this.channel.hold?.(false);
    this.waiting = 0;
    if (tell) this.onclose?.(error);
  }
}

/**
 * A channel as the client's transport: the request a message's stream names goes with it, the
 * headers the client gives (the era's, the caller's) go with each message, and those of the
 * whole conversation (`MCP-Protocol-Version`) to the channel once agreed.
 */
class ChannelTransport implements ClientTransport {
  onmessage?: ClientTransport['onmessage'];
  onclose?: ClientTransport['onclose'];
  onerror?: ClientTransport['onerror'];
  onrequestlost?: ClientTransport['onrequestlost'];

  /** HTTP: the headers of the whole conversation go to a channel that carries headers; a channel without (stdio) is given none. */
  readonly setHeaders?: (headers: Record<string, string>) => void;

  constructor(
    private readonly channel: ClientChannel,
    private readonly started: () => void,
  ) {
    if (channel.setHeaders) this.setHeaders = (headers) => channel.setHeaders!(headers);
  }

  async start(): Promise<void> {
    const channel = this.channel;
    channel.onmessage = (message, related) => this.onmessage?.(message, related === undefined ? undefined : { relatedRequestId: related });
    channel.onclose = (error) => this.onclose?.(error);
    channel.onrequestlost = (id, error) => this.onrequestlost?.(id, error);
    await channel.start();
    this.started();
  }

  send(message: JsonObject, options?: ClientSendOptions): void | Promise<void> {
    return this.channel.send(message, options);
  }

  close(): Promise<void> {
    return this.channel.close();
  }

  listen(): void {
    this.channel.listen?.();
  }
}
