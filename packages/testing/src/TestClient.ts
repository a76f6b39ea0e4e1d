import { Client, ConnectionClosedError, McpRequestError } from '@typemcp/client';
import type { ClientOptions, ClientTransport, RequestOptions as ClientRequestOptions } from '@typemcp/client';
import type { Implementation, LoggingLevel, Transport } from '@typemcp/core';
import { SchemaViolationError } from './errors';
import { isClientRequestMethod, validateServerMessage } from './schemaCheck';
import type {
  CallToolResult,
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

/** Pages a list helper follows before deciding the server's cursors never end. */
const MAX_PAGES = 10_000;
const DEFAULT_TIMEOUT_MS = 10_000;
const CLIENT_INFO = { name: 'typemcp-test-client', version: '0.0.0' };

/**
 * An MCP client for tests, over `Client` of @typemcp/client: the client agrees on the revision
 * (the initialize handshake, or at 2026-07-28 `server/discover` and `_meta` on every request,
 * `input_required` answered with the fakes), answers the server's requests with the fakes it
 * was given; the test client adds its typed helpers and checks every message the server sends
 * against the official schema of the negotiated revision.
 */
export class TestClient {
  /** Every notification the server sent, in order. */
  readonly notifications: ReceivedNotification[] = [];
  serverInfo: Implementation = { name: '', version: '' };
  serverCapabilities: JsonObject = {};
  instructions: string | undefined;

  private readonly client: Client;
  private readonly checked: CheckedTransport;
  private readonly listeners = new Map<string, Set<(params: JsonObject | undefined) => void>>();
  private readonly unreported: string[] = [];
  /** Messages received before the revision was agreed: checked against its schema once it is. */
  private unchecked: Array<{ message: unknown; requestMethod?: string }> | undefined = [];
  /** The revision agreed on: what the schema check holds messages to. */
  private spoken = '';
  /** Closed by the test (the server closing the connection is the client's to know). */
  private closedHere = false;
  private onClose: (() => Promise<void>) | undefined;

  private constructor(
    transport: Transport,
    private readonly options: TestClientOptions,
  ) {
    this.checked = new CheckedTransport(transport, (message, requestMethod) => this.check(message, requestMethod), (text) => this.violation(text));
    this.client = new Client(this.clientOptions());
  }

  /** Connects over `transport` and agrees on the revision with the server. */
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

  /** The revision the conversation speaks. */
  get protocolVersion(): string {
    return this.spoken;
  }

  /** True when the client speaks a revision without a handshake (2026-07-28). */
  get stateless(): boolean {
    return this.client.stateless;
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
    return this.checking('subscriptions/listen', undefined, () => this.client.listen(filter));
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
    await this.checking('logging/setLevel', undefined, () => this.client.setLogLevel(level));
  }

  /**
   * Any request; resolves with its result, rejects with McpRequestError on a JSON-RPC error.
   * At 2026-07-28 an `input_required` result is answered with the fakes and the request sent
   * again, until it completes.
   */
  async request(method: string, params?: JsonObject, options: RequestOptions = {}): Promise<JsonObject> {
    const sent: ClientRequestOptions = {};
    if (options.signal) sent.signal = options.signal;
    if (options.timeoutMs !== undefined) sent.timeoutMs = options.timeoutMs;
    if (options.onprogress) sent.onProgress = options.onprogress;
    return this.checking(method, options.signal, () => this.client.request(method, params, sent));
  }

  /** Sends a notification to the server. */
  async notify(method: string, params?: JsonObject): Promise<void> {
    await this.client.notify(method, params);
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
    if (!this.closedHere) {
      this.closedHere = true;
      await this.client.close();
      await this.onClose?.();
    }
    this.throwViolations();
  }

  private async open(): Promise<void> {
    try {
      await this.client.connect(this.checked);
    } catch (error) {
      this.closedHere = true;
      throw error;
    }
    const { protocolVersion, serverInfo, capabilities, instructions } = this.client.server;
    this.spoken = protocolVersion;
    this.serverInfo = serverInfo;
    this.serverCapabilities = capabilities;
    this.instructions = instructions;
    const held = this.unchecked ?? [];
    this.unchecked = undefined;
    // An invalid answer of the handshake fails it; anything else fails the next call, or close().
    let answerFailed = false;
    for (const { message, requestMethod } of held) {
      const before = this.unreported.length;
      this.check(message, requestMethod);
      if (requestMethod !== undefined && this.unreported.length > before) answerFailed = true;
    }
    if (answerFailed) {
      await this.client.close().catch(() => undefined);
      this.closedHere = true;
      this.throwViolations();
    }
  }

  /** What the client is given: the fakes as its handlers, the test client's defaults. */
  private clientOptions(): ClientOptions {
    const { sampling, elicitation, roots, extensions } = this.options;
    const options: ClientOptions = {
      // Asked for as given (the client's default when none is); another answered fails the connection.
      protocolVersion: this.options.protocolVersion,
      clientInfo: this.options.clientInfo ?? CLIENT_INFO,
      strictVersion: true,
      requestTimeoutMs: this.options.requestTimeoutMs ?? DEFAULT_TIMEOUT_MS,
      // The fakes' params types describe a valid request; the schema check reports any other.
      onOtherRequest: (method) => {
        throw new McpRequestError(method, -32601, `The test client has no fake for ${method}${FAKE_HINTS[method] ?? ''}`);
      },
      onNotification: (notification) => this.heard(notification),
    };
    if (sampling) options.onSample = sampling as unknown as NonNullable<ClientOptions['onSample']>;
    if (elicitation) options.onElicit = elicitation as unknown as NonNullable<ClientOptions['onElicit']>;
    if (roots !== undefined) options.onRoots = roots;
    if (extensions) options.capabilities = { extensions };
    return options;
  }

  /**
   * Runs one call of the client's: a violation not yet reported fails it before it is sent, and
   * one that arrived while it ran (its own answer's, or any other) fails it after.
   */
  private async checking<T>(method: string, signal: AbortSignal | undefined, call: () => Promise<T>): Promise<T> {
    this.throwViolations();
    if (this.closedHere || this.client.isClosed) throw new Error(`Cannot send ${method}: the test client is closed`);
    let result: T;
    try {
      result = await call();
    } catch (error) {
      this.throwViolations();
      if (error instanceof ConnectionClosedError && this.closedHere) throw new Error('The test client was closed');
      if (signal?.aborted && error === signal.reason) throw new Error(`${method} was cancelled: ${String(signal.reason ?? 'aborted')}`);
      throw error;
    }
    this.throwViolations();
    return result;
  }

  private heard(notification: ReceivedNotification): void {
    this.notifications.push(notification);
    for (const handler of [...(this.listeners.get(notification.method) ?? [])]) handler(notification.params);
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

  /** Holds one message of the server's to the schema of the revision spoken (once it is agreed). */
  private check(message: unknown, requestMethod?: string): void {
    if (this.options.schemaCheck === false) return;
    if (this.unchecked) {
      this.unchecked.push({ message, requestMethod });
      return;
    }
    const version = this.spoken;
    // Methods the schema does not define (a plugin's own) get the JSON-RPC envelope checked only.
    const known = requestMethod !== undefined && isClientRequestMethod(version, requestMethod);
    const errors = validateServerMessage(version, message, known ? { requestMethod } : {});
    if (errors.length === 0) return;
    const what = requestMethod ? ` (the answer to ${requestMethod})` : '';
    this.violation(`${preview(message)}${what} fails the ${version} schema:\n${errors.map((e) => `  - ${e}`).join('\n')}`);
  }

  private violation(text: string): void {
    this.unreported.push(text);
  }

  private throwViolations(): void {
    if (this.unreported.length > 0) throw new SchemaViolationError(this.unreported.splice(0));
  }
}

/**
 * The test client's transport to the client: the transport it was given, with every message
 * the server sends handed to the schema check first (an answer with the method it answers).
 * Text that is not JSON, and what is not a JSON-RPC object, stop there.
 */
class CheckedTransport implements ClientTransport {
  onmessage?: ClientTransport['onmessage'];
  onclose?: ClientTransport['onclose'];
  onerror?: ClientTransport['onerror'];
  /** The method of each request sent and not yet answered, by id. */
  private readonly asked = new Map<unknown, string>();

  constructor(
    private readonly inner: Transport,
    private readonly check: (message: unknown, requestMethod?: string) => void,
    private readonly violation: (text: string) => void,
  ) {}

  async start(): Promise<void> {
    this.inner.onmessage = (raw) => this.receive(raw);
    this.inner.onclose = () => this.onclose?.();
    this.inner.onerror = (error) => this.onerror?.(error);
    await this.inner.start();
  }

  async send(message: JsonObject): Promise<void> {
    if (typeof message.method === 'string' && message.id !== undefined) this.asked.set(message.id, message.method);
    await this.inner.send(message as never);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  private receive(raw: unknown): void {
    let message = raw;
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
    if ('method' in msg) this.check(msg);
    else {
      const requestMethod = this.asked.get(msg.id);
      this.asked.delete(msg.id);
      this.check(msg, requestMethod);
    }
    this.onmessage?.(msg);
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
