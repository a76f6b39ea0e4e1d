import type { RequestId } from '@typemcp/core';
import type { ClientChannel, JsonRpcMessage, SendOptions } from './channel';
import { printable } from '../printable';
import { MAX_MESSAGE_BYTES, MessageTooLargeError, readSse } from './sse';

/** The headers of one upstream request. */
export type HeaderMap = Record<string, string>;

export interface HttpChannelOptions {
  url: URL;
  fetch: typeof fetch;
  /** Headers every request carries (the proxy's own, e.g. an API key). */
  headers?: () => HeaderMap | Promise<HeaderMap>;
  /** The largest answer read, in bytes: a JSON body, or one SSE event. Default MAX_MESSAGE_BYTES. */
  maxMessageBytes?: number;
  /** Where what only the operator may see goes (an upstream's error body, an answer refused for its size). */
  report?: (what: string, detail: unknown) => void;
}

/** How much of a body that is not JSON-RPC the operator is shown. */
const EXCERPT_CHARS = 200;

/** How long the handshake era's GET stream waits before it is opened again after it ended. */
const LISTEN_RETRY_MS = [250, 1000, 3000];

/**
 * Streamable HTTP, as a client: each message is POSTed; an answer comes as JSON or as an SSE
 * stream carrying the request's notifications and questions before it. In the handshake era
 * the session id of `initialize` goes with every later request and a GET stream carries what
 * the server sends outside requests; `close()` ends the session with DELETE.
 */
export class HttpChannel implements ClientChannel {
  onmessage?: (message: JsonRpcMessage, related?: RequestId) => void;
  onclose?: (error: Error) => void;
  onrequestlost?: (id: RequestId, error: Error) => void;
  private sessionId: string | undefined;
  /** What every later message carries, as the client set it (the agreed `MCP-Protocol-Version`). */
  private sessionHeaders: HeaderMap = {};
  private readonly open = new Set<AbortController>();
  private closed = false;
  private listening = false;
  private readonly maxBytes: number;

  constructor(private readonly options: HttpChannelOptions) {
    this.maxBytes = options.maxMessageBytes ?? MAX_MESSAGE_BYTES;
  }

  async start(): Promise<void> {}

  setHeaders(headers: Record<string, string>): void {
    this.sessionHeaders = lowerCased(headers);
  }

  async send(message: JsonRpcMessage, options: SendOptions = {}): Promise<void> {
    if (this.closed) throw new Error('the connection to the upstream is closed');
    const id = 'method' in message && 'id' in message ? (message.id as RequestId) : undefined;
    const headers = await this.headersFor(options);
    const controller = new AbortController();
    options.cancelWith?.(() => controller.abort());
    this.open.add(controller);
    const release = () => void this.open.delete(controller);
    let response: Response;
    try {
      response = await this.options.fetch(this.options.url, { method: 'POST', headers, body: JSON.stringify(message), signal: controller.signal, redirect: 'manual' });
    } catch (error) {
      release();
      if (controller.signal.aborted) return;
      // A request fetch refuses (a header it cannot carry) fails alone; a network failure (with a cause) ends the session.
      if ((error as { cause?: unknown }).cause === undefined) throw new Error(`the request could not be sent: ${causeOf(error)}`);
      const unreachable = new Error(`the upstream at ${this.options.url.origin} cannot be reached: ${causeOf(error)}`);
      // Nothing answers there: a session it held is gone with it, and a new one is sought at once.
      this.lose(unreachable);
      throw unreachable;
    }
    if (isRedirect(response)) {
      // Followed, it would carry the upstream's headers (credentials) and the body to wherever it points.
      release();
      await response.body?.cancel().catch(() => undefined);
      const location = response.headers.get('location');
      throw new Error(`the upstream at ${this.options.url.origin} answered with a redirect${location ? ` to ${location.slice(0, 200)}` : ''}, which the proxy does not follow: configure the URL it names`);
    }
    const session = response.headers.get('mcp-session-id');
    if (session && message.method === 'initialize') this.sessionId = session;
    if (response.status === 404 && this.sessionId !== undefined && message.method !== 'initialize') {
      release();
      await response.body?.cancel().catch(() => undefined);
      this.lose(new Error('the upstream ended the session (HTTP 404)'));
      throw new Error('the upstream ended the session');
    }
    const type = response.headers.get('content-type') ?? '';
    if (id === undefined || response.status === 202) {
      release();
      await response.body?.cancel().catch(() => undefined);
      if (!response.ok && response.status !== 202) throw new Error(`the upstream refused a message with HTTP ${response.status}`);
      return;
    }
    const method = String(message.method);
    if (type.includes('text/event-stream') && response.body) {
      // Read in the background: the request's answer comes at the end of its stream.
      void this.readStream(response.body, id, method, controller).finally(release);
      return;
    }
    let text: string;
    try {
      text = await readBody(response, this.maxBytes);
    } catch (error) {
      // Cancelled, or timed out, meanwhile: the request is over already.
      if (controller.signal.aborted || this.closed) return;
      if (error instanceof MessageTooLargeError) return this.refuseTooLarge(id, method);
      this.onrequestlost?.(id, new Error(`the upstream's answer broke off: ${causeOf(error)}`));
      return;
    } finally {
      release();
    }
    const parsed = parseJson(text);
    const messages = (Array.isArray(parsed) ? parsed : [parsed]) as Array<Record<string, unknown> | null>;
    // Only JSON-RPC that answers this request counts: an HTTP error with a JSON body of its own is an error of the request.
    if (messages.some((message) => typeof message === 'object' && message !== null && message.id === id && !('method' in message))) {
      for (const message of messages) this.deliver(message, id);
      return;
    }
    // The client hears the status; the body may tell of the upstream's internals, and only the operator sees it.
    if (text.trim() !== '') this.options.report?.(`the upstream answered ${method} with HTTP ${response.status} and no JSON-RPC answer; its body begins`, printable(text, EXCERPT_CHARS));
    this.deliver({ jsonrpc: '2.0', id, error: { code: -32603, message: `The upstream answered HTTP ${response.status}${response.ok ? ' without an answer to the request' : ''}` } }, id);
  }

  listen(): void {
    if (this.listening || this.closed || this.sessionId === undefined) return;
    this.listening = true;
    void this.keepListening();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const controller of this.open) controller.abort();
    this.open.clear();
    if (this.sessionId === undefined) return;
    const headers: HeaderMap = { ...(await this.ownHeaders()), ...this.sessionHeaders, 'mcp-session-id': this.sessionId };
    await this.options.fetch(this.options.url, { method: 'DELETE', headers, signal: AbortSignal.timeout(2000), redirect: 'manual' }).then(
      (response) => response.body?.cancel(),
      () => undefined,
    );
  }

  /** The GET stream of the handshake era, opened again while the session lives. */
  private async keepListening(): Promise<void> {
    let failures = 0;
    while (!this.closed) {
      const controller = new AbortController();
      this.open.add(controller);
      try {
        const headers: HeaderMap = { ...(await this.ownHeaders()), ...this.sessionHeaders, accept: 'text/event-stream', 'mcp-session-id': this.sessionId! };
        const response = await this.options.fetch(this.options.url, { method: 'GET', headers, signal: controller.signal, redirect: 'manual' });
        if (response.status === 405) return; // the server offers no stream: nothing arrives outside requests
        if (response.status === 404) return this.lose(new Error('the upstream ended the session (HTTP 404)'));
        if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
        failures = 0;
        for await (const event of readSse(response.body, this.maxBytes)) this.deliver(parseJson(event.data), undefined);
      } catch {
        if (this.closed) return;
        failures++;
      } finally {
        this.open.delete(controller);
      }
      if (this.closed) return;
      // The stream ending with the server gone: the session is lost once it cannot be opened again.
      if (failures > LISTEN_RETRY_MS.length) return this.lose(new Error(`the upstream at ${this.options.url.origin} cannot be reached`));
      await delay(LISTEN_RETRY_MS[Math.min(failures, LISTEN_RETRY_MS.length - 1)]);
    }
  }

  private async readStream(body: ReadableStream<Uint8Array>, id: RequestId, method: string, controller: AbortController): Promise<void> {
    let answered = false;
    let tooLarge = false;
    try {
      for await (const event of readSse(body, this.maxBytes)) {
        const message = parseJson(event.data) as JsonRpcMessage | undefined;
        if (message && !('method' in message) && message.id === id) answered = true;
        this.deliver(message, id);
      }
    } catch (error) {
      // The connection broke: said below, unless the request was cancelled.
      tooLarge = error instanceof MessageTooLargeError;
    }
    if (answered || controller.signal.aborted || this.closed) return;
    if (tooLarge) this.refuseTooLarge(id, method);
    else this.onrequestlost?.(id, new Error('the upstream closed the stream before answering: it may have stopped'));
  }

  /** An answer longer than the proxy reads: the request fails with an error that says so; the operator hears of it. */
  private refuseTooLarge(id: RequestId, method: string): void {
    const message = `The upstream's answer to ${method} is larger than ${this.maxBytes} bytes (maxMessageBytes); the proxy stopped reading it`;
    this.options.report?.(`the upstream's answer to ${method} was refused`, new Error(message));
    this.deliver({ jsonrpc: '2.0', id, error: { code: -32603, message } }, id);
  }

  /**
   * A message from the upstream, with the request whose response carried it. An answer counts
   * only on the response of the request it answers: one for another request (on another's
   * stream, in another's batch, on the GET stream) is dropped, never taken as that request's.
   */
  private deliver(message: unknown, related: RequestId | undefined): void {
    if (typeof message !== 'object' || message === null || Array.isArray(message)) return;
    if (!('method' in message) && (message as { id?: unknown }).id !== related) return;
    this.onmessage?.(message as JsonRpcMessage, related);
  }

  private lose(error: Error): void {
    if (this.closed) return;
    this.closed = true;
    for (const controller of this.open) controller.abort();
    this.open.clear();
    this.onclose?.(error);
  }

  private async ownHeaders(): Promise<HeaderMap> {
    return lowerCased((await this.options.headers?.()) ?? {});
  }

  /** The proxy's own headers, those the client gives for the conversation and for this message (the era's, the caller's), and the session. */
  private async headersFor(options: SendOptions): Promise<HeaderMap> {
    const headers: HeaderMap = {
      ...(await this.ownHeaders()),
      ...this.sessionHeaders,
      ...lowerCased(options.headers ?? {}),
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    if (this.sessionId !== undefined) headers['mcp-session-id'] = this.sessionId;
    return headers;
  }
}

function lowerCased(headers: HeaderMap): HeaderMap {
  const out: HeaderMap = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined && value !== null) out[name.toLowerCase()] = String(value);
  return out;
}

/**
 * The body as text, read up to `max` bytes as it arrives (after any decompression): past it,
 * or when Content-Length says it will be past it, the body is cancelled and
 * MessageTooLargeError thrown.
 */
async function readBody(response: Response, max: number): Promise<string> {
  const body = response.body;
  if (!body) return '';
  const encoding = response.headers.get('content-encoding');
  // Content-Length counts the bytes as sent: decisive only for a body that is not compressed.
  if ((encoding === null || encoding === 'identity') && Number(response.headers.get('content-length')) > max) {
    await body.cancel().catch(() => undefined);
    throw new MessageTooLargeError(max);
  }
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
  return new TextDecoder().decode(Buffer.concat(chunks));
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

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A redirect, as fetch gives it with `redirect: 'manual'` (a 3xx on Node, an opaque one in browsers). */
function isRedirect(response: Response): boolean {
  return response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400);
}
