import { ConnectionClosedError, McpRequestError, RequestTimeoutError } from './errors';
import { agree } from './eras';
import type { ClientEra, Link, SendOptions } from './eras/ClientEra';
import type { ClientTransport, ReceivedInfo } from './transports/ClientTransport';
import type {
  CallToolOptions,
  CallToolResult,
  ClientOptions,
  CompleteResult,
  CompletionReference,
  GetPromptResult,
  Implementation,
  JsonObject,
  ListedPrompt,
  ListedResource,
  ListedResourceTemplate,
  ListedTool,
  ListenFilter,
  LoggingLevel,
  Page,
  ReadResourceResult,
  ReceivedNotification,
  RequestId,
  RequestOptions,
  ServerDescription,
  Subscription,
} from './types';

const DEFAULT_TIMEOUT_MS = 60_000;
/** Pages a list helper follows before deciding the server's cursors never end. */
const MAX_PAGES = 10_000;
const DEFAULT_CLIENT_INFO = { name: 'typemcp-client', version: '0.1.0' };

/** The longest delay a timer takes. */
const MAX_DELAY_MS = 2 ** 31 - 1;

/** A request waiting for its answer; it leaves `pending` as it settles, once. */
class Pending {
  /** When the wait runs out (`performance.now()` ms); none for a request that stays open. */
  deadline: number | undefined;
  /** Ends what the request holds open (an HTTP response stream), when the transport gave a way. */
  abortStream?: () => void;
  private cleanup: (() => void) | undefined;
  private settled = false;

  constructor(
    private readonly pending: Map<RequestId, Pending>,
    readonly id: RequestId,
    readonly method: string,
    readonly headers: Record<string, string> | undefined,
    private readonly done: (result: JsonObject) => void,
    private readonly fail: (error: Error) => void,
    readonly timeoutMs: number | undefined,
  ) {
    if (timeoutMs !== undefined) this.deadline = performance.now() + timeoutMs;
  }

  /** Given to the transport's send: keeps what ends the request's stream. */
  readonly holdsOpen = (abort: () => void): void => void (this.abortStream = abort);

  /** Runs `cleanup` too as the request settles. */
  also(cleanup: (() => void) | undefined): void {
    const before = this.cleanup;
    this.cleanup = before === undefined || cleanup === undefined ? cleanup : () => (before(), cleanup());
  }

  /** A progress notification came: the wait starts again. */
  restart(): void {
    if (this.timeoutMs !== undefined) this.deadline = performance.now() + this.timeoutMs;
  }

  resolve(result: JsonObject): void {
    if (this.settle()) this.done(result);
  }

  reject(error: Error): void {
    if (this.settle()) this.fail(error);
  }

  /** The transport could not send it. */
  unsent(error: Error): void {
    this.reject(error instanceof ConnectionClosedError ? error : new ConnectionClosedError(`${this.method} could not be sent: ${error.message}`));
  }

  private settle(): boolean {
    if (this.settled) return false;
    this.settled = true;
    if (this.pending.get(this.id) === this) this.pending.delete(this.id);
    this.cleanup?.();
    return true;
  }
}

/**
 * An MCP client for both eras of the protocol. It connects over any `ClientTransport`
 * (stdio, Streamable HTTP, or core's in-memory pair), agrees on a revision with the server
 * (the `initialize` handshake, or at 2026-07-28 `server/discover` and `_meta` on every
 * request), answers the server's questions (elicitation, sampling, roots) with its handlers
 * in either era, and gives typed helpers for every server feature.
 */
export class Client {
  private transport: ClientTransport | undefined;
  private codec: ClientEra | undefined;
  private nextId = 1;
  private nextToken = 1;
  private readonly pending = new Map<RequestId, Pending>();
  private readonly progress = new Map<string | number, (params: JsonObject) => void>();
  private readonly listeners = new Map<string, Set<(notification: ReceivedNotification, info?: ReceivedInfo) => void>>();
  private readonly questions = new AbortController();
  private closed = false;
  private closeError: Error | undefined;
  private readonly closedCallbacks = new Set<(error: Error | undefined) => void>();
  private watchdog: ReturnType<typeof setTimeout> | undefined;
  private watchdogAt = Infinity;

  constructor(readonly options: ClientOptions = {}) {}

  /** Creates a client and connects it over `transport`. */
  static async connect(transport: ClientTransport, options: ClientOptions = {}): Promise<Client> {
    const client = new Client(options);
    await client.connect(transport);
    return client;
  }

  /** Starts the transport and agrees on a revision with the server (see `ClientOptions.protocolVersion`). */
  async connect(transport: ClientTransport): Promise<void> {
    if (this.transport) throw new Error('This client is connected already: make a new Client for another connection');
    this.transport = transport;
    transport.onmessage = (message, info) => this.receive(message, info);
    transport.onclose = (error?: Error) => this.lost(error ?? new ConnectionClosedError('The connection to the server closed'));
    transport.onrequestlost = (id, error) => this.pending.get(id)?.reject(new ConnectionClosedError(error.message));
    await transport.start();
    try {
      this.codec = await agree(this.link(transport));
    } catch (error) {
      await this.close().catch(() => undefined);
      throw error;
    }
  }

  /** The revision the conversation speaks. */
  get protocolVersion(): string {
    return this.server.protocolVersion;
  }

  /** True when the conversation has no handshake (2026-07-28): each request carries its context. */
  get stateless(): boolean {
    return this.connected().stateless;
  }

  get serverInfo(): Implementation {
    return this.connected().server.serverInfo;
  }

  get serverCapabilities(): JsonObject {
    return this.connected().server.capabilities;
  }

  get instructions(): string | undefined {
    return this.connected().server.instructions;
  }

  /** What the server said of itself as the conversation began (`initialize` or `server/discover`). */
  get server(): ServerDescription {
    return this.connected().server;
  }

  /** The capabilities the client declared. */
  get capabilities(): JsonObject {
    return this.connected().capabilities;
  }

  /** True once closed, by either side. */
  get isClosed(): boolean {
    return this.closed;
  }

  // ---- tools ------------------------------------------------------------------------------

  /** One page of `tools/list`. */
  async listTools(cursor?: string, options?: RequestOptions): Promise<Page<ListedTool>> {
    return this.page<ListedTool>('tools/list', 'tools', cursor, options);
  }

  /** Every tool, every page followed. */
  async listAllTools(options?: RequestOptions): Promise<ListedTool[]> {
    return this.collect(this.iterate<ListedTool>('tools/list', 'tools', options));
  }

  /**
   * Calls a tool. `onProgress` asks for progress, `signal` cancels it (the server hears
   * `notifications/cancelled`), `timeoutMs` bounds the wait, `task` runs it as a task and waits
   * for the task's result.
   */
  async callTool(name: string, args?: JsonObject, options: CallToolOptions = {}): Promise<CallToolResult> {
    if (options.task) return (await this.connected().callToolAsTask(name, args, options)) as CallToolResult;
    return (await this.request('tools/call', args === undefined ? { name } : { name, arguments: args }, options)) as CallToolResult;
  }

  // ---- prompts ----------------------------------------------------------------------------

  async listPrompts(cursor?: string, options?: RequestOptions): Promise<Page<ListedPrompt>> {
    return this.page<ListedPrompt>('prompts/list', 'prompts', cursor, options);
  }

  async listAllPrompts(options?: RequestOptions): Promise<ListedPrompt[]> {
    return this.collect(this.iterate<ListedPrompt>('prompts/list', 'prompts', options));
  }

  async getPrompt(name: string, args?: Record<string, string>, options?: RequestOptions): Promise<GetPromptResult> {
    return (await this.request('prompts/get', args === undefined ? { name } : { name, arguments: args }, options)) as GetPromptResult;
  }

  // ---- resources --------------------------------------------------------------------------

  async listResources(cursor?: string, options?: RequestOptions): Promise<Page<ListedResource>> {
    return this.page<ListedResource>('resources/list', 'resources', cursor, options);
  }

  async listAllResources(options?: RequestOptions): Promise<ListedResource[]> {
    return this.collect(this.iterate<ListedResource>('resources/list', 'resources', options));
  }

  async listResourceTemplates(cursor?: string, options?: RequestOptions): Promise<Page<ListedResourceTemplate>> {
    return this.page<ListedResourceTemplate>('resources/templates/list', 'resourceTemplates', cursor, options);
  }

  async listAllResourceTemplates(options?: RequestOptions): Promise<ListedResourceTemplate[]> {
    return this.collect(this.iterate<ListedResourceTemplate>('resources/templates/list', 'resourceTemplates', options));
  }

  async readResource(uri: string, options?: RequestOptions): Promise<ReadResourceResult> {
    return (await this.request('resources/read', { uri }, options)) as ReadResourceResult;
  }

  /**
   * Subscribes to one resource's updates (`notifications/resources/updated`): `resources/subscribe`
   * in the handshake era, a `subscriptions/listen` stream at 2026-07-28. Resolves with the
   * subscription; `unsubscribe(uri)` or its `close()` ends it.
   */
  async subscribe(uri: string): Promise<Subscription> {
    const subscription = await this.listen({ resourceSubscriptions: [uri] });
    this.subscriptions.set(uri, subscription);
    return subscription;
  }

  async unsubscribe(uri: string): Promise<void> {
    const subscription = this.subscriptions.get(uri);
    if (!subscription) throw new Error(`No subscription to ${uri} is open`);
    this.subscriptions.delete(uri);
    await subscription.close();
  }

  private readonly subscriptions = new Map<string, Subscription>();

  /**
   * Asks for the notifications of `filter`: at 2026-07-28 a `subscriptions/listen` stream (resolves
   * once the server acknowledged it, with what it honours); in the handshake era
   * `resources/subscribe` for each resource, list changes being sent to every session (the
   * server's `listChanged` capabilities say which). The notifications reach `on()` and
   * `onNotification`.
   */
  async listen(filter: ListenFilter): Promise<Subscription> {
    return this.connected().listen(filter);
  }

  // ---- the rest ---------------------------------------------------------------------------

  async complete(ref: CompletionReference, argument: { name: string; value: string }, context?: { arguments?: Record<string, string> }, options?: RequestOptions): Promise<CompleteResult> {
    return (await this.request('completion/complete', context === undefined ? { ref, argument } : { ref, argument, context }, options)) as CompleteResult;
  }

  /** The server's log level: `logging/setLevel`, or at 2026-07-28 the level every later request carries in `_meta`. */
  async setLogLevel(level: LoggingLevel): Promise<void> {
    await this.connected().setLogLevel(level);
  }

  /** `ping` (the handshake era; at 2026-07-28, where it is gone, `server/discover` stands for it). */
  async ping(options?: RequestOptions): Promise<void> {
    await this.connected().ping(options);
  }

  /**
   * Any request, as the era sends it (`_meta`, headers, the `input_required` rounds answered
   * with the handlers); resolves with its result, rejects with McpRequestError on a JSON-RPC
   * error, RequestTimeoutError past `timeoutMs`, the signal's reason when aborted.
   */
  request(method: string, params?: JsonObject, options: RequestOptions = {}): Promise<JsonObject> {
    // Not async: the era's promise is handed back as it is (no extra promise per request).
    try {
      return this.connected().request(method, params, options);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** Sends a notification. */
  async notify(method: string, params?: JsonObject): Promise<void> {
    if (this.closed || !this.transport) throw new ConnectionClosedError(`Cannot send ${method}: the client is closed`);
    await this.transport.send(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });
  }

  /** Calls `handler` for each notification of `method` (`*` for every one); returns the function that stops it. */
  on(method: string, handler: (notification: ReceivedNotification, info?: ReceivedInfo) => void): () => void {
    let handlers = this.listeners.get(method);
    if (!handlers) this.listeners.set(method, (handlers = new Set()));
    handlers.add(handler);
    return () => void handlers.delete(handler);
  }

  /** Calls `callback` once when the connection is gone (closed by either side), with why when the transport said. */
  onClose(callback: (error: Error | undefined) => void): () => void {
    if (this.closed) queueMicrotask(() => callback(this.closeError));
    else this.closedCallbacks.add(callback);
    return () => void this.closedCallbacks.delete(callback);
  }

  /** Pages of a list method, one item at a time, following cursors until the last page. */
  async *iterate<T>(method: string, key: string, options?: RequestOptions): AsyncGenerator<T> {
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const { items, nextCursor } = await this.page<T>(method, key, cursor, options);
      yield* items;
      if (nextCursor === undefined) return;
      if (seen.has(nextCursor)) throw new Error(`${method} returned the cursor ${JSON.stringify(nextCursor)} twice: the pages would never end`);
      seen.add(nextCursor);
      cursor = nextCursor;
    }
    throw new Error(`${method} did not end within ${MAX_PAGES} pages`);
  }

  /** Closes the connection: pending requests reject, the transport closes (HTTP ends its session with DELETE). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.lost(new ConnectionClosedError('The client was closed'), false);
    await this.transport?.close();
  }

  // ---- JSON-RPC ---------------------------------------------------------------------------

  private async page<T>(method: string, key: string, cursor: string | undefined, options?: RequestOptions): Promise<Page<T>> {
    const result = await this.request(method, cursor === undefined ? undefined : { cursor }, options);
    const page: Page<T> = { items: (result[key] as T[] | undefined) ?? [] };
    if (typeof result.nextCursor === 'string') page.nextCursor = result.nextCursor;
    return page;
  }

  private async collect<T>(items: AsyncIterable<T>): Promise<T[]> {
    const all: T[] = [];
    for await (const item of items) all.push(item);
    return all;
  }

  private connected(): ClientEra {
    if (!this.codec) throw new Error(this.closed ? 'The client is closed' : 'The client is not connected: await client.connect(transport) first');
    return this.codec;
  }

  /** What the era codec is given: JSON-RPC as it is. */
  private link(transport: ClientTransport): Link {
    return {
      transport,
      options: this.options,
      clientInfo: this.options.clientInfo ?? DEFAULT_CLIENT_INFO,
      send: (method, params, options) => this.send(method, params, options),
      notify: (method, params) => this.notify(method, params),
      answer: (method, params, related) => this.handle(method, params, related),
      on: (method, handler) => this.on(method, handler),
      cancel: (id, reason) => this.cancel(id, reason),
    };
  }

  private send(method: string, params: JsonObject | undefined, options: SendOptions = {}): Promise<JsonObject> {
    if (this.closed || !this.transport) return Promise.reject(this.closeError ?? new ConnectionClosedError(`Cannot send ${method}: the client is closed`));
    const transport = this.transport;
    const id = this.nextId++;
    options.onId?.(id);
    let body = params;
    let token: string | number | undefined;
    if (options.onProgress || options.meta) {
      const meta: JsonObject = { ...(params?._meta as JsonObject | undefined), ...options.meta };
      if (options.onProgress) {
        token = meta.progressToken === undefined ? `p${this.nextToken++}` : (meta.progressToken as string | number);
        meta.progressToken = token;
      }
      body = { ...params, _meta: meta };
    }
    return new Promise<JsonObject>((resolve, reject) => {
      const timeoutMs = options.background ? undefined : (options.timeoutMs ?? this.options.requestTimeoutMs ?? DEFAULT_TIMEOUT_MS);
      const entry = new Pending(this.pending, id, method, options.headers, resolve, reject, timeoutMs);
      if (token !== undefined) {
        const onProgress = options.onProgress!;
        const reset = options.resetTimeoutOnProgress === true;
        this.progress.set(token, (p) => {
          if (reset) entry.restart();
          onProgress({ progress: p.progress as number, total: p.total as number | undefined, message: p.message as string | undefined });
        });
        entry.also(() => this.progress.delete(token!));
      }
      if (options.signal) {
        const signal = options.signal;
        const reason = () => (signal.reason instanceof Error ? signal.reason : new Error(`${method} was cancelled: ${String(signal.reason ?? 'aborted')}`));
        if (signal.aborted) return entry.reject(reason());
        const onAbort = () => {
          if (this.pending.get(id) !== entry) return;
          entry.reject(reason());
          void this.cancel(id, String(signal.reason ?? 'aborted'), entry);
        };
        signal.addEventListener('abort', onAbort, { once: true });
        entry.also(() => signal.removeEventListener('abort', onAbort));
      }
      this.pending.set(id, entry);
      if (entry.deadline !== undefined) this.watch(entry.deadline);
      const message = body === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params: body };
      // Sent at once: the request is on its way (and its id known to the transport) when this returns.
      try {
        const sending = transport.send(message, { headers: options.headers, cancelWith: entry.holdsOpen });
        if (sending) sending.catch((error: Error) => entry.unsent(error));
      } catch (error) {
        entry.unsent(error as Error);
      }
    });
  }

  /**
   * One watchdog for every request: a timer for the earliest deadline, which cancels the
   * requests whose wait ran out and is set again for the next (a timer per request costs
   * more than the rest of sending it).
   */
  private watch(deadline: number): void {
    if (this.watchdog !== undefined && this.watchdogAt <= deadline) return;
    if (this.watchdog !== undefined) clearTimeout(this.watchdog);
    this.watchdogAt = deadline;
    this.watchdog = setTimeout(() => this.sweep(), Math.min(MAX_DELAY_MS, Math.max(0, deadline - performance.now())));
    // The connection keeps the process alive while an answer is awaited, not the watchdog.
    (this.watchdog as { unref?: () => void }).unref?.();
  }

  private sweep(): void {
    this.watchdog = undefined;
    const now = performance.now();
    let next = Infinity;
    for (const [id, entry] of [...this.pending]) {
      if (entry.deadline === undefined) continue;
      if (entry.deadline <= now) {
        entry.reject(new RequestTimeoutError(entry.method, entry.timeoutMs!));
        void this.cancel(id, 'timed out', entry);
      } else next = Math.min(next, entry.deadline);
    }
    if (next !== Infinity && !this.closed) this.watch(next);
  }

  /**
   * Cancels a request of this client's by its id (`RequestOptions.onId` gives it): the call
   * rejects, the server hears `notifications/cancelled` with `reason`, and what the request holds
   * open (an HTTP response stream) is closed. A request already answered is left alone.
   */
  async cancelRequest(id: RequestId, reason: string): Promise<void> {
    if (this.pending.has(id)) await this.cancel(id, reason);
  }

  /** Tells the server a request is cancelled (`notifications/cancelled`) and closes what it holds open. */
  private async cancel(id: RequestId, reason: string, entry = this.pending.get(id)): Promise<void> {
    if (this.pending.get(id) === entry) entry?.reject(new Error(`${entry.method} was cancelled: ${reason}`));
    entry?.abortStream?.();
    if (this.closed || !this.transport) return;
    await Promise.resolve(this.transport.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason } }, { headers: entry?.headers })).catch(() => undefined);
  }

  private receive(raw: unknown, info: ReceivedInfo | undefined): void {
    let message = raw;
    if (typeof raw === 'string') {
      try {
        message = JSON.parse(raw);
      } catch {
        this.transport?.onerror?.(new Error('The server sent a line that is not JSON'));
        return;
      }
    }
    if (Array.isArray(message)) {
      for (const each of message) this.receive(each, info);
      return;
    }
    if (typeof message !== 'object' || message === null) return;
    const msg = message as JsonObject;
    const related = info?.relatedRequestId;
    if (typeof msg.method === 'string') {
      const params = (typeof msg.params === 'object' && msg.params !== null ? msg.params : {}) as JsonObject;
      if ('id' in msg && msg.id !== null && msg.id !== undefined) return void this.question(msg.id as RequestId, msg.method, params, related);
      if (msg.method === 'notifications/progress') {
        this.progress.get(params.progressToken as string | number)?.(params);
      }
      const notification: ReceivedNotification = msg.params === undefined ? { method: msg.method } : { method: msg.method, params };
      this.options.onNotification?.(notification, info);
      for (const key of [msg.method, '*']) for (const handler of [...(this.listeners.get(key) ?? [])]) handler(notification, info);
      return;
    }
    const pending = this.pending.get(msg.id as RequestId);
    if (!pending) return;
    if ('error' in msg) {
      const error = (msg.error ?? {}) as { code?: number; message?: string; data?: unknown };
      pending.reject(new McpRequestError(pending.method, typeof error.code === 'number' ? error.code : -32603, String(error.message ?? 'the server failed'), error.data));
    } else pending.resolve((msg.result as JsonObject | undefined) ?? {});
  }

  /** A question of the server's (a request to the client): answered by the matching handler. */
  private async question(id: RequestId, method: string, params: JsonObject, related: RequestId | undefined): Promise<void> {
    let reply: JsonObject;
    try {
      reply = { jsonrpc: '2.0', id, result: await this.handle(method, params, related) };
    } catch (error) {
      const given = (error as { code?: unknown } | undefined)?.code;
      const code = error instanceof McpRequestError ? error.code : typeof given === 'number' && Number.isInteger(given) ? given : -32603;
      reply = { jsonrpc: '2.0', id, error: { code, message: error instanceof McpRequestError ? error.message.replace(/^.* failed with -?\d+: /, '') : error instanceof Error ? error.message : String(error) } };
    }
    if (this.closed || !this.transport) return;
    const headers = related === undefined ? undefined : this.pending.get(related)?.headers;
    await Promise.resolve(this.transport.send(reply, { headers })).catch(() => undefined);
  }

  /** The client's answer to a question, from its handlers. */
  private async handle(method: string, params: JsonObject, related: RequestId | undefined): Promise<JsonObject> {
    const extra = { relatedRequestId: related, signal: this.questions.signal };
    const { onElicit, onSample, onRoots } = this.options;
    switch (method) {
      case 'ping':
        return {};
      case 'elicitation/create':
        if (onElicit) return onElicit(params as never, extra);
        break;
      case 'sampling/createMessage':
        if (onSample) return onSample(params as never, extra);
        break;
      case 'roots/list':
        if (onRoots) return { roots: typeof onRoots === 'function' ? await onRoots() : onRoots };
        break;
    }
    if (this.options.onOtherRequest) return this.options.onOtherRequest(method, params, extra);
    throw new McpRequestError(method, -32601, `This client does not answer ${method}${HINTS[method] ?? ''}`);
  }

  private lost(error: Error, told = true): void {
    if (this.closed) return;
    this.closed = true;
    if (told) this.closeError = error;
    this.questions.abort(error);
    if (this.watchdog !== undefined) clearTimeout(this.watchdog);
    this.watchdog = undefined;
    for (const pending of [...this.pending.values()]) pending.reject(error);
    this.pending.clear();
    this.progress.clear();
    for (const callback of [...this.closedCallbacks]) callback(this.closeError);
    this.closedCallbacks.clear();
  }
}

const HINTS: Readonly<Record<string, string>> = {
  'sampling/createMessage': ': give the client an onSample handler',
  'elicitation/create': ': give the client an onElicit handler',
  'roots/list': ': give the client onRoots',
};
