import type { OutgoingMessage, Transport } from '@typemcp/core';

export interface HttpClientOptions {
  /** Headers every request carries: `Authorization: Bearer …` from --token, those of --header. */
  headers?: Record<string, string>;
  /** The protocol version chosen with --protocol: sent in `MCP-Protocol-Version`. */
  protocol?: string;
}

/** Methods whose target a request mirrors in `Mcp-Name`, and the param that holds it. */
const NAMED: Readonly<Record<string, string>> = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri' };

/**
 * Streamable HTTP as the CLI's client speaks it: each message is POSTed, the answer read as
 * JSON or as an event stream whose messages are handed on; the session id of `initialize`
 * goes with every later request, and `close()` ends the session with DELETE.
 */
export class HttpClientTransport implements Transport {
  onmessage?: (message: unknown) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  sessionId?: string;
  private closed = false;

  constructor(
    private readonly url: URL,
    private readonly options: HttpClientOptions = {},
  ) {}

  async start(): Promise<void> {}

  async send(message: OutgoingMessage): Promise<void> {
    const body = message as { method?: string; params?: Record<string, unknown> };
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...this.options.headers };
    if (this.sessionId) headers['mcp-session-id'] = this.sessionId;
    if (this.options.protocol) headers['mcp-protocol-version'] = this.options.protocol;
    if (body.method) headers['mcp-method'] = body.method;
    const named = body.method ? NAMED[body.method] : undefined;
    if (named && typeof body.params?.[named] === 'string') headers['mcp-name'] = body.params[named] as string;
    let response: Response;
    try {
      response = await fetch(this.url, { method: 'POST', headers, body: JSON.stringify(message), redirect: 'manual' });
    } catch (error) {
      throw new Error(`${this.url.href} cannot be reached: ${String((error as { cause?: { message?: string } }).cause?.message ?? (error as Error).message)}`);
    }
    // Not followed: --token and --header would go where the server says.
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel().catch(() => undefined);
      const location = response.headers.get('location');
      throw new Error(`${this.url.href} redirects${location ? ` to ${location.slice(0, 200)}` : ''}: give that URL instead`);
    }
    const session = response.headers.get('mcp-session-id');
    if (session && body.method === 'initialize') this.sessionId = session;
    const type = response.headers.get('content-type') ?? '';
    if (type.includes('text/event-stream')) return this.readStream(response);
    const text = await response.text();
    if (response.status === 202 || (response.ok && text === '')) return;
    let answer: unknown;
    try {
      answer = JSON.parse(text);
    } catch {
      answer = undefined;
    }
    // A JSON-RPC answer, errors included (a refusal comes as 401 or 403 with one), goes to the client.
    if (answer && typeof answer === 'object' && (answer as { jsonrpc?: unknown }).jsonrpc === '2.0' && 'id' in answer && (answer as { id: unknown }).id !== null) {
      this.onmessage?.(answer);
      return;
    }
    const challenge = response.headers.get('www-authenticate');
    throw new Error(`${this.url.href} answered HTTP ${response.status}${challenge ? ` (WWW-Authenticate: ${challenge})` : ''}${text ? `: ${text.slice(0, 200)}` : ''}`);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.sessionId) {
      const headers: Record<string, string> = { ...this.options.headers, 'mcp-session-id': this.sessionId };
      if (this.options.protocol) headers['mcp-protocol-version'] = this.options.protocol;
      await fetch(this.url, { method: 'DELETE', headers, redirect: 'manual' }).then((response) => response.body?.cancel(), () => undefined);
    }
    this.onclose?.();
  }

  /** Hands on the messages of an event stream (`data:` lines, one event per blank line) until it ends. */
  private async readStream(response: Response): Promise<void> {
    const decoder = new TextDecoder();
    let buffered = '';
    let data: string[] = [];
    const reader = response.body!.getReader();
    for (;;) {
      const { value, done } = await reader.read();
      buffered += decoder.decode(value, { stream: !done });
      let newline: number;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, newline).replace(/\r$/, '');
        buffered = buffered.slice(newline + 1);
        if (line === '') {
          if (data.length) this.onmessage?.(JSON.parse(data.join('\n')));
          data = [];
        } else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      if (done) break;
    }
    if (data.length) this.onmessage?.(JSON.parse(data.join('\n')));
  }
}
