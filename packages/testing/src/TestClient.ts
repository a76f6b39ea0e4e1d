import { LATEST_HANDSHAKE_VERSION, MODERN_VERSIONS } from '@typemcp/core';
import type { ClientCapabilities, Implementation, LoggingLevel, Transport } from '@typemcp/core';
import { McpRequestError, SchemaViolationError } from './errors';
import { isClientRequestMethod, validateServerMessage } from './schemaCheck';
import type {
  CallToolResult,
  ClientRequestHandler,
  CompleteResult,
  CompletionReference,
  GetPromptResult,
  JsonObject,
  ListedPrompt,
  ListedResource,
  ListedResourceTemplate,
  ListedSkill,
  ListedTool,
  ReadResourceResult,
  ListenFilter,
  ReceivedNotification,
  RequestOptions,
  Subscription,
  TestClientOptions,
} from './types';

interface PendingRequest {
  method: string;
  resolve: (result: JsonObject) => void;
  reject: (error: Error) => void;
  cleanup: () => void;
}

/** Rounds of `input_required` a request may take before the client gives up on it. */
const MAX_INPUT_ROUNDS = 10;

/** Pages a list helper follows before deciding the server's cursors never end. */
const MAX_PAGES = 10_000;
const DEFAULT_TIMEOUT_MS = 10_000;

/**
 * An MCP client for tests: it performs the initialize handshake over any transport, answers
 * the server's requests with the fakes it was given, and checks every message the server
 * sends against the official schema of the negotiated revision. At protocol 2026-07-28 there
 * is no handshake: it discovers the server with `server/discover`, sends `_meta` with every
 * request, and answers `input_required` results with the same fakes, retrying until the
 * request completes.
 */
export class TestClient {
  /** Every notification the server sent, in order. */
  readonly notifications: ReceivedNotification[] = [];
  serverInfo: Implementation = { name: '', version: '' };
  serverCapabilities: JsonObject = {};
  protocolVersion: string;
  instructions: string | undefined;

  private nextId = 1;
  private readonly pending = new Map<number, PendingRequest>();
  private readonly listeners = new Map<string, Set<(params: JsonObject | undefined) => void>>();
  private readonly unreported: string[] = [];
  private closed = false;
  private onClose: (() => Promise<void>) | undefined;
  /** 2026-07-28: the log level sent in every request's `_meta` once setLogLevel was called. */
  private logLevel: LoggingLevel | undefined;

  private constructor(
    private readonly transport: Transport,
    private readonly options: TestClientOptions,
  ) {
    this.protocolVersion = options.protocolVersion ?? LATEST_HANDSHAKE_VERSION;
  }

  /** Connects over `transport` and completes the handshake. */
  static async connect(transport: Transport, options: TestClientOptions = {}): Promise<TestClient> {
    const client = new TestClient(transport, options);
    await client.open();
    return client;
  }

  /** @internal Runs after the client's own transport closed, e.g. to close a server the client created. */
  set afterClose(hook: () => Promise<void>) {
    this.onClose = hook;
  }

  async listTools(): Promise<ListedTool[]> {
    return this.listAll<ListedTool>('tools/list', 'tools');
  }

  async callTool(name: string, args?: JsonObject, options?: RequestOptions): Promise<CallToolResult> {
    return (await this.request('tools/call', args === undefined ? { name } : { name, arguments: args }, options)) as CallToolResult;
  }

  async listResources(): Promise<ListedResource[]> {
    return this.listAll<ListedResource>('resources/list', 'resources');
  }

  async listResourceTemplates(): Promise<ListedResourceTemplate[]> {
    return this.listAll<ListedResourceTemplate>('resources/templates/list', 'resourceTemplates');
  }

  /** Every skill of every `skills/list` page (Skills extension). */
  async listSkills(): Promise<ListedSkill[]> {
    return this.listAll<ListedSkill>('skills/list', 'skills');
  }

  async readResource(uri: string): Promise<ReadResourceResult> {
    return (await this.request('resources/read', { uri })) as ReadResourceResult;
  }

  /** True when the client speaks a revision without a handshake (2026-07-28). */
  get stateless(): boolean {
    return (MODERN_VERSIONS as readonly string[]).includes(this.protocolVersion);
  }

  async subscribe(uri: string): Promise<void> {
    if (this.stateless) throw new Error(`resources/subscribe does not exist in ${this.protocolVersion}: use listen({ resourceSubscriptions: [uri] })`);
    await this.request('resources/subscribe', { uri });
  }

  async unsubscribe(uri: string): Promise<void> {
    if (this.stateless) throw new Error(`resources/unsubscribe does not exist in ${this.protocolVersion}: close the listen stream instead`);
    await this.request('resources/unsubscribe', { uri });
  }

  /**
   * 2026-07-28: opens a `subscriptions/listen` stream and resolves once the server acknowledged
   * it, with the filter it honours. Its notifications arrive like any other (onNotification,
   * nextNotification, `notifications`); `close()` cancels the stream.
   */
  async listen(filter: ListenFilter): Promise<Subscription> {
    if (!this.stateless) throw new Error(`subscriptions/listen needs protocol 2026-07-28; this client speaks ${this.protocolVersion}`);
    const id = this.nextId;
    const acknowledged = new Promise<JsonObject | undefined>((resolve) => {
      const stop = this.onNotification('notifications/subscriptions/acknowledged', (params) => {
        const meta = params?._meta as JsonObject | undefined;
        if (meta?.['io.modelcontextprotocol/subscriptionId'] !== id) return;
        stop();
        resolve(params);
      });
    });
    const ended = this.sendRequest('subscriptions/listen', { notifications: filter }, { timeoutMs: 2 ** 31 - 1 });
    const ack = await Promise.race([acknowledged, ended.then(() => undefined)]);
    if (!ack) throw new Error('The server ended subscriptions/listen before acknowledging it');
    ended.catch(() => undefined);
    return {
      honoured: (ack.notifications as ListenFilter | undefined) ?? {},
      ended: ended.then(
        () => 'graceful' as const,
        () => 'closed' as const,
      ),
      close: async () => {
        this.cancelPending(id, 'subscription closed');
        await this.notify('notifications/cancelled', { requestId: id, reason: 'subscription closed' });
      },
    };
  }

  async listPrompts(): Promise<ListedPrompt[]> {
    return this.listAll<ListedPrompt>('prompts/list', 'prompts');
  }

  async getPrompt(name: string, args?: Record<string, string>): Promise<GetPromptResult> {
    return (await this.request('prompts/get', args === undefined ? { name } : { name, arguments: args })) as GetPromptResult;
  }

  async complete(
    ref: CompletionReference,
    argument: { name: string; value: string },
    context?: { arguments?: Record<string, string> },
  ): Promise<CompleteResult> {
    return (await this.request('completion/complete', context === undefined ? { ref, argument } : { ref, argument, context })) as CompleteResult;
  }

  /** The log level: `logging/setLevel`, or at 2026-07-28 the level sent in every request's `_meta`. */
  async setLogLevel(level: LoggingLevel): Promise<void> {
    if (this.stateless) {
      this.logLevel = level;
      return;
    }
    await this.request('logging/setLevel', { level });
  }

  /**
   * Any request; resolves with its result, rejects with McpRequestError on a JSON-RPC error.
   * At 2026-07-28 an `input_required` result is answered with the fakes and the request sent
   * again, until it completes.
   */
  async request(method: string, params?: JsonObject, options: RequestOptions = {}): Promise<JsonObject> {
    if (!this.stateless) return this.sendRequest(method, params, options);
    let body = params;
    for (let round = 1; ; round++) {
      const result = await this.sendRequest(method, body, options);
      if (result.resultType !== 'input_required') return result;
      if (round === MAX_INPUT_ROUNDS) throw new Error(`${method} still asked for input after ${MAX_INPUT_ROUNDS} rounds`);
      const inputResponses: JsonObject = {};
      for (const [key, question] of Object.entries((result.inputRequests as Record<string, JsonObject> | undefined) ?? {})) {
        const handler = this.handlerFor(String(question.method));
        if (!handler) throw new Error(`${method} asked for ${String(question.method)} (input "${key}"), and the test client has no fake for it${FAKE_HINTS[String(question.method)] ?? ''}`);
        inputResponses[key] = await handler((question.params as JsonObject | undefined) ?? {});
      }
      body = { ...params, inputResponses };
      if (result.requestState !== undefined) body.requestState = result.requestState;
    }
  }

  private sendRequest(method: string, params?: JsonObject, options: RequestOptions = {}): Promise<JsonObject> {
    const violations = this.takeViolations();
    if (violations) return Promise.reject(violations);
    if (this.closed) return Promise.reject(new Error(`Cannot send ${method}: the test client is closed`));
    const id = this.nextId++;
    let body = this.stateless ? this.withMeta(params) : params;
    const cleanups: Array<() => void> = [];
    if (options.onprogress) {
      const onprogress = options.onprogress;
      body = { ...body, _meta: { ...(body?._meta as JsonObject | undefined), progressToken: id } };
      cleanups.push(
        this.onNotification('notifications/progress', (p) => {
          if (p?.progressToken !== id) return;
          const { progress, total, message } = p as { progress: number; total?: number; message?: string };
          onprogress({ progress, total, message });
        }),
      );
    }
    return new Promise<JsonObject>((resolve, reject) => {
      const fail = (error: Error) => {
        this.settle(id);
        reject(error);
      };
      const timeoutMs = options.timeoutMs ?? this.options.requestTimeoutMs ?? DEFAULT_TIMEOUT_MS;
      const timer = setTimeout(() => fail(new Error(`${method} got no answer within ${timeoutMs} ms`)), timeoutMs);
      cleanups.push(() => clearTimeout(timer));
      if (options.signal) {
        const signal = options.signal;
        const onAbort = () => {
          void this.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: String(signal.reason ?? 'aborted') } });
          fail(new Error(`${method} was cancelled: ${String(signal.reason ?? 'aborted')}`));
        };
        if (signal.aborted) return onAbort();
        signal.addEventListener('abort', onAbort, { once: true });
        cleanups.push(() => signal.removeEventListener('abort', onAbort));
      }
      this.pending.set(id, { method, resolve, reject, cleanup: () => cleanups.forEach((c) => c()) });
      this.send(body === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params: body }).catch(fail);
    });
  }

  /** Sends a notification to the server. */
  async notify(method: string, params?: JsonObject): Promise<void> {
    await this.send(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });
  }

  /** Calls `handler` for each notification of `method`; returns a function that stops it. */
  onNotification(method: string, handler: (params: JsonObject | undefined) => void): () => void {
    let handlers = this.listeners.get(method);
    if (!handlers) this.listeners.set(method, (handlers = new Set()));
    handlers.add(handler);
    return () => handlers.delete(handler);
  }

  /** The next notification of `method` (one already received and not yet waited for counts). */
  nextNotification(method: string, { timeoutMs = DEFAULT_TIMEOUT_MS } = {}): Promise<JsonObject | undefined> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        stop();
        reject(new Error(`No ${method} notification within ${timeoutMs} ms`));
      }, timeoutMs);
      const stop = this.onNotification(method, (params) => {
        clearTimeout(timer);
        stop();
        resolve(params);
      });
    });
  }

  /**
   * Closes the connection (and the server, when the client created it). Throws when the server
   * sent a message that failed the schema and no call has reported it yet.
   */
  async close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      // Before the transport closes: its onclose would report the server as the one that closed.
      this.failPending(new Error('The test client was closed'));
      await this.transport.close();
      await this.onClose?.();
    }
    const violations = this.takeViolations();
    if (violations) throw violations;
  }

  private async open(): Promise<void> {
    this.transport.onmessage = (message) => this.receive(message);
    this.transport.onclose = () => {
      this.closed = true;
      this.failPending(new Error('The connection to the server closed'));
    };
    await this.transport.start();
    if (this.stateless) return this.discover();
    const result = await this.request('initialize', {
      protocolVersion: this.protocolVersion,
      capabilities: this.capabilities(),
      clientInfo: this.options.clientInfo ?? { name: 'typemcp-test-client', version: '0.0.0' },
    });
    if (result.protocolVersion !== this.protocolVersion) {
      await this.close().catch(() => undefined);
      throw new Error(`Asked the server for protocol ${this.protocolVersion} but it answered ${String(result.protocolVersion)}`);
    }
    this.serverInfo = result.serverInfo as Implementation;
    this.serverCapabilities = (result.capabilities as JsonObject) ?? {};
    this.instructions = result.instructions as string | undefined;
    await this.notify('notifications/initialized');
  }

  /** 2026-07-28: what `initialize` told in the handshake era, from `server/discover`. */
  private async discover(): Promise<void> {
    const result = await this.request('server/discover');
    const supported = (result.supportedVersions as string[] | undefined) ?? [];
    if (!supported.includes(this.protocolVersion)) {
      await this.close().catch(() => undefined);
      throw new Error(`Asked the server for protocol ${this.protocolVersion} but it serves ${supported.join(', ') || 'none'}`);
    }
    this.serverInfo = (result._meta as JsonObject | undefined)?.['io.modelcontextprotocol/serverInfo'] as Implementation;
    this.serverCapabilities = (result.capabilities as JsonObject) ?? {};
    this.instructions = result.instructions as string | undefined;
  }

  /** The per-request `_meta` of 2026-07-28, under what the caller put there. */
  private withMeta(params: JsonObject | undefined): JsonObject {
    const meta: JsonObject = {
      'io.modelcontextprotocol/protocolVersion': this.protocolVersion,
      'io.modelcontextprotocol/clientCapabilities': this.capabilities() as JsonObject,
      'io.modelcontextprotocol/clientInfo': (this.options.clientInfo ?? { name: 'typemcp-test-client', version: '0.0.0' }) as JsonObject,
    };
    if (this.logLevel !== undefined) meta['io.modelcontextprotocol/logLevel'] = this.logLevel;
    return { ...params, _meta: { ...meta, ...(params?._meta as JsonObject | undefined) } };
  }

  /** Stops waiting for a request without an error (a listen stream the test closed). */
  private cancelPending(id: number, reason: string): void {
    const pending = this.pending.get(id);
    if (!pending) return;
    this.settle(id);
    pending.reject(new Error(`${pending.method} was cancelled: ${reason}`));
  }

  private capabilities(): ClientCapabilities {
    const { sampling, elicitation, roots } = this.options;
    const atLeast = (version: string) => this.protocolVersion >= version;
    const capabilities: JsonObject = {};
    if (sampling) capabilities.sampling = atLeast('2025-11-25') ? { tools: {} } : {};
    if (elicitation && atLeast('2025-06-18')) capabilities.elicitation = atLeast('2025-11-25') ? { form: {}, url: {} } : {};
    if (roots) capabilities.roots = { listChanged: true };
    if (this.options.extensions) capabilities.extensions = this.options.extensions;
    return capabilities as ClientCapabilities;
  }

  private async listAll<T>(method: string, key: string): Promise<T[]> {
    const items: T[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = await this.request(method, cursor === undefined ? undefined : { cursor });
      items.push(...((result[key] as T[] | undefined) ?? []));
      cursor = result.nextCursor as string | undefined;
      if (cursor === undefined) return items;
      if (seen.has(cursor)) throw new Error(`${method} returned the cursor ${JSON.stringify(cursor)} twice: the pages would never end`);
      seen.add(cursor);
    }
    throw new Error(`${method} did not end within ${MAX_PAGES} pages`);
  }

  private receive(raw: unknown): void {
    let message: unknown = raw;
    if (typeof raw === 'string') {
      try {
        message = JSON.parse(raw);
      } catch {
        this.violation(`the server sent text that is not JSON: ${preview(raw)}`);
        return;
      }
    }
    if (typeof message !== 'object' || message === null || Array.isArray(message)) {
      this.check(message);
      return;
    }
    const msg = message as JsonObject;
    if ('method' in msg && 'id' in msg) {
      this.check(msg);
      void this.answer(msg.id, String(msg.method), (msg.params as JsonObject | undefined) ?? {});
    } else if ('method' in msg) {
      this.check(msg);
      const notification: ReceivedNotification = { method: String(msg.method) };
      if (msg.params !== undefined) notification.params = msg.params as JsonObject;
      this.notifications.push(notification);
      for (const handler of [...(this.listeners.get(notification.method) ?? [])]) handler(notification.params);
    } else {
      const pending = typeof msg.id === 'number' ? this.pending.get(msg.id) : undefined;
      this.check(msg, pending?.method);
      if (!pending) return;
      this.settle(msg.id as number);
      const violations = this.takeViolations();
      if (violations) pending.reject(violations);
      else if ('error' in msg) {
        const error = msg.error as { code: number; message: string; data?: unknown };
        pending.reject(new McpRequestError(pending.method, error.code, error.message, error.data));
      } else pending.resolve(msg.result as JsonObject);
    }
  }

  /** Answers a server-to-client request with the matching fake. */
  private async answer(id: unknown, method: string, params: JsonObject): Promise<void> {
    const handler = this.handlerFor(method);
    let reply: JsonObject;
    if (!handler) {
      reply = { jsonrpc: '2.0', id, error: { code: -32601, message: `The test client has no fake for ${method}${FAKE_HINTS[method] ?? ''}` } };
    } else {
      try {
        reply = { jsonrpc: '2.0', id, result: await handler(params) };
      } catch (error) {
        reply = { jsonrpc: '2.0', id, error: { code: -32603, message: error instanceof Error ? error.message : String(error) } };
      }
    }
    if (!this.closed) await this.send(reply).catch(() => undefined);
  }

  private handlerFor(method: string): ClientRequestHandler | undefined {
    const { sampling, elicitation, roots } = this.options;
    switch (method) {
      case 'ping':
        return () => ({});
      // The params types describe a valid request; the schema check reports any other.
      case 'sampling/createMessage':
        return sampling as ClientRequestHandler | undefined;
      case 'elicitation/create':
        return elicitation as ClientRequestHandler | undefined;
      case 'roots/list':
        return roots === undefined ? undefined : async () => ({ roots: typeof roots === 'function' ? await roots() : roots });
      default:
        return undefined;
    }
  }

  private check(message: unknown, requestMethod?: string): void {
    if (this.options.schemaCheck === false) return;
    // Methods the schema does not define (a plugin's own) get the JSON-RPC envelope checked only.
    const known = requestMethod !== undefined && isClientRequestMethod(this.protocolVersion, requestMethod);
    const errors = validateServerMessage(this.protocolVersion, message, known ? { requestMethod } : {});
    if (errors.length === 0) return;
    const what = requestMethod ? ` (the answer to ${requestMethod})` : '';
    this.violation(`${preview(message)}${what} fails the ${this.protocolVersion} schema:\n${errors.map((e) => `  - ${e}`).join('\n')}`);
  }

  private violation(text: string): void {
    this.unreported.push(text);
  }

  private takeViolations(): SchemaViolationError | undefined {
    if (this.unreported.length === 0) return undefined;
    return new SchemaViolationError(this.unreported.splice(0));
  }

  private settle(id: number): void {
    const pending = this.pending.get(id);
    if (!pending) return;
    this.pending.delete(id);
    pending.cleanup();
  }

  private failPending(error: Error): void {
    for (const [id, pending] of [...this.pending]) {
      this.settle(id);
      pending.reject(error);
    }
  }

  private async send(message: JsonObject): Promise<void> {
    await this.transport.send(message as never);
  }
}

const FAKE_HINTS: Readonly<Record<string, string>> = {
  'sampling/createMessage': ': pass { sampling: (params) => result } to createTestClient',
  'elicitation/create': ': pass { elicitation: (params) => result } to createTestClient',
  'roots/list': ': pass { roots: [...] } to createTestClient',
};

function preview(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}
