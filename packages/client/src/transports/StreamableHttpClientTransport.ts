import type { JsonObject, RequestId } from '../types';
import type { ClientSendOptions, ClientTransport, ReceivedInfo } from './ClientTransport';
import { MAX_MESSAGE_BYTES, MessageTooLargeError, readSse } from './sse';

/**
 * The options of `new StreamableHttpClientTransport(url, …)`: the fetch it uses, the headers it
 * adds, the largest answer it reads.
 */
export interface StreamableHttpClientOptions {
  /** The fetch to use (default: the global one): a wrapper may add credentials, retry, log. */
  fetch?: typeof fetch;
  /** Headers every request carries (an API key, a bearer token); a function is asked before each request. */
  headers?: Record<string, string> | (() => Record<string, string> | Promise<Record<string, string>>);
  /** The largest answer read, in bytes: a JSON body, or one SSE event. Default 64 MiB. */
  maxMessageBytes?: number;
  /**
   * Resumption (SEP-1699): a stream that ends before its answer, after the server gave its
   * events ids, is resumed with a GET carrying `Last-Event-ID`, after the server's `retry:`
   * delay (default 1000 ms), at most `maxResumptions` times (default 5; 0 turns it off).
   */
  maxResumptions?: number;
  /** How long `close()` waits for the session's DELETE (default 2000 ms). */
  closeTimeoutMs?: number;
}

/** How long the session's GET stream waits before it is opened again after it ended. */
const LISTEN_RETRY_MS = [250, 1000, 3000];

/**
 * Streamable HTTP over `fetch`, on any runtime with Web APIs (Node, Bun, Deno, Workers,
 * browsers): each message is POSTed; an answer comes as JSON or as an SSE stream carrying the
 * request's notifications and questions before it (each handed over with the request it came
 * with). The session id a server gives goes with every later request; `listen()` opens the
 * GET stream for what the server sends outside requests; `close()` ends the session with
 * DELETE. The era's headers (`MCP-Protocol-Version`, `Mcp-Method`, …) are given to it by the
 * client (`setHeaders`, and each send's `headers`).
 */
export class StreamableHttpClientTransport implements ClientTransport {
  onmessage?: (message: unknown, info?: ReceivedInfo) => void;
  onclose?: (error?: Error) => void;
  onerror?: (error: Error) => void;
  onrequestlost?: (id: RequestId, error: Error) => void;
  private session: string | undefined;
  private sessionHeaders: Record<string, string> = {};
  private readonly open = new Set<AbortController>();
  private closed = false;
  private listening = false;
  private readonly url: URL;
  private readonly fetch: typeof fetch;
  private readonly maxBytes: number;

  constructor(
    url: URL | string,
    private readonly options: StreamableHttpClientOptions = {},
  ) {
    this.url = new URL(url);
    this.fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.maxBytes = options.maxMessageBytes ?? MAX_MESSAGE_BYTES;
  }

  /** The session the server gave (`Mcp-Session-Id`), when it gave one. */
  get sessionId(): string | undefined {
    return this.session;
  }

  async start(): Promise<void> {}

  setHeaders(headers: Record<string, string>): void {
    this.sessionHeaders = lowerCased(headers);
  }

  async send(message: JsonObject, options: ClientSendOptions = {}): Promise<void> {
    if (this.closed) throw new Error('The connection to the server is closed');
    const id = typeof message.method === 'string' && 'id' in message ? (message.id as RequestId) : undefined;
    const headers: Record<string, string> = { ...(await this.baseHeaders()), ...lowerCased(options.headers ?? {}), 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const controller = new AbortController();
    options.cancelWith?.(() => controller.abort());
    this.open.add(controller);
    const release = () => void this.open.delete(controller);
    let response: Response;
    try {
      response = await this.fetch(this.url, { method: 'POST', headers, body: JSON.stringify(message), signal: controller.signal, redirect: 'manual' });
    } catch (error) {
      release();
      if (controller.signal.aborted) return;
      throw new Error(`The server at ${this.url.origin} cannot be reached: ${causeOf(error)}`);
    }
    if (isRedirect(response)) {
      // Followed, the message and the headers (an API key, the session) would go where the server says.
      release();
      await response.body?.cancel().catch(() => undefined);
      const location = response.headers.get('location');
      throw new Error(`The server at ${this.url.origin} answered with a redirect${location ? ` to ${location.slice(0, 200)}` : ''}, which this client does not follow: connect to the URL it names`);
    }
    const given = response.headers.get('mcp-session-id');
    if (given && this.session === undefined) this.session = given;
    if (response.status === 404 && headers['mcp-session-id'] !== undefined) {
      release();
      await response.body?.cancel().catch(() => undefined);
      this.lose(new Error('The server ended the session (HTTP 404)'));
      throw new Error('The server ended the session');
    }
    if (id === undefined || response.status === 202) {
      release();
      await response.body?.cancel().catch(() => undefined);
      if (!response.ok && response.status !== 202) throw new Error(`The server refused a message with HTTP ${response.status}`);
      return;
    }
    const type = response.headers.get('content-type') ?? '';
    if (type.includes('text/event-stream') && response.body) {
      // Read in the background: the request's answer comes at the end of its stream.
      void this.readStream(response.body, id, controller).finally(release);
      return;
    }
    let text: string;
    try {
      text = await readBody(response, this.maxBytes);
    } catch (error) {
      if (controller.signal.aborted || this.closed) return;
      this.deliver({ jsonrpc: '2.0', id, error: { code: -32603, message: error instanceof MessageTooLargeError ? `The answer is larger than ${this.maxBytes} bytes` : `The answer broke off: ${causeOf(error)}` } }, id);
      return;
    } finally {
      release();
    }
    const parsed = parseJson(text);
    const messages = Array.isArray(parsed) ? parsed : [parsed];
    if (messages.some((each) => isObject(each) && each.id === id && !('method' in each))) {
      for (const each of messages) this.deliver(each, id);
      return;
    }
    this.deliver({ jsonrpc: '2.0', id, error: { code: -32603, message: `The server answered HTTP ${response.status}${response.ok ? ' without an answer to the request' : `: ${text.slice(0, 200)}`}` } }, id);
  }

  /** Opens the session's GET stream (once): what the server sends outside requests arrives on it, reopened while the session lives. */
  listen(): void {
    if (this.listening || this.closed || this.session === undefined) return;
    this.listening = true;
    void this.keepListening();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const controller of this.open) controller.abort();
    this.open.clear();
    if (this.session !== undefined) {
      const headers = { ...(await this.baseHeaders()) };
      await this.fetch(this.url, { method: 'DELETE', headers, signal: AbortSignal.timeout(this.options.closeTimeoutMs ?? 2000), redirect: 'manual' }).then(
        (response) => response.body?.cancel(),
        () => undefined,
      );
    }
    this.onclose?.();
  }

  private async keepListening(): Promise<void> {
    let failures = 0;
    let lastEventId: string | undefined;
    while (!this.closed) {
      const controller = new AbortController();
      this.open.add(controller);
      try {
        const headers: Record<string, string> = { ...(await this.baseHeaders()), accept: 'text/event-stream' };
        if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
        const response = await this.fetch(this.url, { method: 'GET', headers, signal: controller.signal, redirect: 'manual' });
        if (response.status === 405) return void (await response.body?.cancel().catch(() => undefined)); // no stream offered
        if (response.status === 404) return this.lose(new Error('The server ended the session (HTTP 404)'));
        if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
        failures = 0;
        for await (const event of readSse(response.body, this.maxBytes, { onId: (eventId) => (lastEventId = eventId) })) this.deliver(parseJson(event.data), undefined);
      } catch {
        if (this.closed) return;
        failures++;
      } finally {
        this.open.delete(controller);
      }
      if (this.closed) return;
      if (failures > LISTEN_RETRY_MS.length) return;
      await delay(LISTEN_RETRY_MS[Math.min(failures, LISTEN_RETRY_MS.length - 1)]);
    }
  }

  /** A request's event stream, resumed with `Last-Event-ID` when it ends before the answer (SEP-1699). */
  private async readStream(first: ReadableStream<Uint8Array>, id: RequestId, controller: AbortController): Promise<void> {
    let body: ReadableStream<Uint8Array> | undefined = first;
    let lastEventId: string | undefined;
    let retryMs = 1000;
    let resumptions = 0;
    const maxResumptions = this.options.maxResumptions ?? 5;
    while (body) {
      let answered = false;
      try {
        for await (const event of readSse(body, this.maxBytes, { onId: (eventId) => (lastEventId = eventId), onRetry: (ms) => (retryMs = ms) })) {
          const message = parseJson(event.data);
          if (isObject(message) && !('method' in message) && message.id === id) answered = true;
          this.deliver(message, id);
        }
      } catch (error) {
        if (error instanceof MessageTooLargeError) {
          this.deliver({ jsonrpc: '2.0', id, error: { code: -32603, message: `The answer is larger than ${this.maxBytes} bytes` } }, id);
          return;
        }
      }
      if (answered || controller.signal.aborted || this.closed) return;
      body = undefined;
      if (lastEventId === undefined || resumptions++ >= maxResumptions) break;
      await delay(retryMs, controller.signal);
      if (controller.signal.aborted || this.closed) return;
      try {
        const headers = { ...(await this.baseHeaders()), accept: 'text/event-stream', 'last-event-id': lastEventId };
        const response = await this.fetch(this.url, { method: 'GET', headers, signal: controller.signal, redirect: 'manual' });
        if (response.ok && response.body && (response.headers.get('content-type') ?? '').includes('text/event-stream')) body = response.body;
        else await response.body?.cancel().catch(() => undefined);
      } catch {
        // Not resumed: the request is lost below.
      }
    }
    if (!controller.signal.aborted && !this.closed) this.onrequestlost?.(id, new Error('The server closed the stream before answering'));
  }

  /** A message, with the request whose response carried it; an answer counts only on its own request's response. */
  private deliver(message: unknown, related: RequestId | undefined): void {
    if (!isObject(message)) return;
    if (!('method' in message) && message.id !== related) return;
    this.onmessage?.(message, related === undefined ? undefined : { relatedRequestId: related });
  }

  private lose(error: Error): void {
    if (this.closed) return;
    this.closed = true;
    for (const controller of this.open) controller.abort();
    this.open.clear();
    this.onclose?.(error);
  }

  private async baseHeaders(): Promise<Record<string, string>> {
    const own = typeof this.options.headers === 'function' ? await this.options.headers() : (this.options.headers ?? {});
    const headers = { ...lowerCased(own), ...this.sessionHeaders };
    if (this.session !== undefined) headers['mcp-session-id'] = this.session;
    return headers;
  }
}

function lowerCased(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined && value !== null) out[name.toLowerCase()] = String(value);
  return out;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The body as text, read up to `max` bytes. */
async function readBody(response: Response, max: number): Promise<string> {
  const body = response.body;
  if (!body) return '';
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > max) {
        await reader.cancel().catch(() => undefined);
        throw new MessageTooLargeError(max);
      }
      chunks.push(value);
    }
  } finally {
    reader.releaseLock();
  }
  const all = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    all.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(all);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}

/** Waits `ms`, or less when `signal` aborts (a closed client keeps no timer a server's `retry:` asked for). */
function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}

/** A redirect, as fetch gives it with `redirect: 'manual'` (a 3xx in Node, an opaque one in browsers). */
function isRedirect(response: Response): boolean {
  return response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400);
}
