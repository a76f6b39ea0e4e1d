import { HANDSHAKE_VERSIONS, LATEST_HANDSHAKE_VERSION, MODERN_VERSIONS } from '@typemcp/core';
import type { RequestId } from '@typemcp/core';
import type { ClientChannel, JsonRpcMessage, SendOptions } from './channel';

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

interface Pending extends RequestHandlers {
  resolve(result: Record<string, unknown>): void;
  reject(error: Error): void;
  progressToken?: string;
  /** The request's own headers: its answers to the server's questions go with them too. */
  headers?: Record<string, string>;
  /** Another request that takes questions was in flight at some time while this one was. */
  overlapped?: boolean;
}

/**
 * One conversation with an upstream MCP server over a channel: the `initialize` handshake, or
 * at 2026-07-28 `server/discover` and `_meta` on every request. Requests resolve with their
 * result or reject with UpstreamError; a channel that closes rejects every request at once
 * with UpstreamGoneError.
 */
export class UpstreamSession {
  protocolVersion = LATEST_HANDSHAKE_VERSION as string;
  serverCapabilities: Record<string, unknown> = {};
  serverInfo: { name: string; version: string } = { name: '', version: '' };
  instructions: string | undefined;
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
  private nextId = 1;
  private readonly pending = new Map<RequestId, Pending>();
  private readonly byToken = new Map<string, Pending>();
  private gone: Error | undefined;
  /** Requests waiting for an answer, but for background ones. */
  private waiting = 0;

  private constructor(
    private readonly channel: ClientChannel,
    private readonly options: SessionOptions,
  ) {}

  /** Opens the channel and agrees on a revision with the server. */
  static async open(channel: ClientChannel, options: SessionOptions): Promise<UpstreamSession> {
    const session = new UpstreamSession(channel, options);
    channel.onmessage = (message, related) => session.receive(message, related);
    channel.onclose = (error) => session.lost(error);
    channel.onrequestlost = (id, error) => session.pending.get(id)?.reject(new UpstreamGoneError(error.message));
    await channel.start();
    try {
      await session.agree();
    } catch (error) {
      await channel.close().catch(() => undefined);
      throw error;
    }
    return session;
  }

  /** True when the conversation has no handshake (2026-07-28). */
  get modern(): boolean {
    return (MODERN_VERSIONS as readonly string[]).includes(this.protocolVersion);
  }

  get alive(): boolean {
    return this.gone === undefined;
  }

  request(method: string, params: Record<string, unknown> | undefined, options: UpstreamRequestOptions = {}): Promise<Record<string, unknown>> {
    if (this.gone) return Promise.reject(new UpstreamGoneError(this.gone.message));
    const id = this.nextId++;
    let body: Record<string, unknown> | undefined = params;
    let progressToken: string | undefined;
    if (options.onProgress) progressToken = `proxy-${id}`;
    if (this.modern || progressToken !== undefined) {
      const meta: Record<string, unknown> = { ...(params?._meta as Record<string, unknown> | undefined) };
      if (this.modern) Object.assign(meta, this.modernMeta(), options.meta);
      if (progressToken !== undefined) meta.progressToken = progressToken;
      body = { ...params, _meta: meta };
    }
    return new Promise<Record<string, unknown>>((resolve, reject) => {
      const timeoutMs = options.timeoutMs ?? this.options.timeoutMs;
      // A watchdog: it must not keep the process alive (a proxy on stdio ends with its input).
      const timer = setTimeout(() => cancel('timed out', new UpstreamError(-32001, `The upstream did not answer ${method} within ${timeoutMs} ms`)), timeoutMs);
      (timer as { unref?: () => void }).unref?.();
      const settle = () => {
        clearTimeout(timer);
        if (this.pending.delete(id) && !options.background && --this.waiting === 0) this.channel.hold?.(false);
        if (progressToken !== undefined) this.byToken.delete(progressToken);
      };
      const fail = (error: Error) => {
        settle();
        reject(error);
      };
      let closeStream: (() => void) | undefined;
      // Cancelled by the caller or timed out: the server hears it (stdio, the handshake era), and over HTTP the request's stream closes too.
      const cancel = (reason: string, error: Error = new UpstreamError(-32800, `${method} was cancelled`)) => {
        if (!this.pending.has(id)) return;
        fail(error);
        void this.channel.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason } }, { headers: options.headers }).catch(() => undefined);
        closeStream?.();
      };
      options.cancelWith?.(cancel);
      const entry: Pending = {
        resolve: (result) => {
          settle();
          resolve(result);
        },
        reject: fail,
        onRequest: options.onRequest,
        onNotification: options.onNotification,
        onProgress: options.onProgress,
        progressToken,
        headers: options.headers,
      };
      if (entry.onRequest) {
        for (const other of this.pending.values()) {
          if (other.onRequest) other.overlapped = entry.overlapped = true;
        }
      }
      this.pending.set(id, entry);
      if (!options.background && this.waiting++ === 0) this.channel.hold?.(true);
      if (progressToken !== undefined) this.byToken.set(progressToken, entry);
      const send: SendOptions = { cancelWith: (abort) => void (closeStream = abort), headers: options.headers, paramHeaders: options.paramHeaders };
      this.channel.send(body === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params: body }, send).catch((error: Error) => fail(new UpstreamGoneError(error.message)));
    });
  }

  async notify(method: string, params?: Record<string, unknown>): Promise<void> {
    if (this.gone) return;
    await this.channel.send(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });
  }

  async close(): Promise<void> {
    this.lost(new UpstreamGoneError('the connection to the upstream was closed'), false);
    await this.channel.close();
  }

  /** What every 2026-07-28 request says of the client, unless the request says otherwise. */
  private modernMeta(): Record<string, unknown> {
    return {
      'io.modelcontextprotocol/protocolVersion': this.protocolVersion,
      'io.modelcontextprotocol/clientInfo': this.options.clientInfo,
      'io.modelcontextprotocol/clientCapabilities': this.options.capabilities,
    };
  }

  private async agree(): Promise<void> {
    const wanted = this.options.protocolVersion;
    const modern = wanted === 'auto' ? MODERN_VERSIONS[MODERN_VERSIONS.length - 1] : (MODERN_VERSIONS as readonly string[]).includes(wanted) ? wanted : undefined;
    if (modern !== undefined) {
      this.protocolVersion = modern;
      this.channel.protocolVersion = modern;
      try {
        const found = await this.request('server/discover', undefined);
        const supported = (found.supportedVersions as string[] | undefined) ?? [];
        if (supported.includes(modern)) {
          this.serverCapabilities = (found.capabilities as Record<string, unknown> | undefined) ?? {};
          this.serverInfo = ((found._meta as Record<string, unknown> | undefined)?.['io.modelcontextprotocol/serverInfo'] as { name: string; version: string }) ?? this.serverInfo;
          this.instructions = found.instructions as string | undefined;
          return;
        }
        if (wanted !== 'auto') throw new Error(`the upstream does not serve ${modern} (it serves ${supported.join(', ') || 'nothing it names'})`);
      } catch (error) {
        if (wanted !== 'auto' || error instanceof UpstreamGoneError) throw error;
      }
    }
    const version = modern === undefined ? wanted : LATEST_HANDSHAKE_VERSION;
    this.protocolVersion = version;
    this.channel.protocolVersion = undefined;
    const result = await this.request('initialize', { protocolVersion: version, capabilities: this.options.capabilities, clientInfo: this.options.clientInfo });
    const agreed = String(result.protocolVersion);
    if (!(HANDSHAKE_VERSIONS as readonly string[]).includes(agreed)) throw new Error(`the upstream answered initialize with protocol ${agreed}, which this proxy does not speak`);
    this.protocolVersion = agreed;
    this.channel.protocolVersion = agreed;
    this.serverCapabilities = (result.capabilities as Record<string, unknown> | undefined) ?? {};
    this.serverInfo = (result.serverInfo as { name: string; version: string }) ?? this.serverInfo;
    this.instructions = result.instructions as string | undefined;
    await this.notify('notifications/initialized');
    this.channel.listen?.();
  }

  private receive(message: JsonRpcMessage, related: RequestId | undefined): void {
    const method = typeof message.method === 'string' ? message.method : undefined;
    const params = (typeof message.params === 'object' && message.params !== null ? message.params : {}) as Record<string, unknown>;
    if (method === undefined) {
      const entry = this.pending.get(message.id as RequestId);
      if (!entry) return;
      if ('error' in message) {
        const error = message.error as { code?: number; message?: string; data?: unknown };
        entry.reject(new UpstreamError(typeof error?.code === 'number' ? error.code : -32603, String(error?.message ?? 'the upstream failed'), error?.data));
      } else entry.resolve((message.result as Record<string, unknown>) ?? {});
      return;
    }
    if (!('id' in message)) {
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
      return;
    }
    void this.answer(message.id as RequestId, method, params, related);
  }

  /** Answers a question of the server's: for the request it came with, else as the session does. */
  private async answer(id: RequestId, method: string, params: Record<string, unknown>, related: RequestId | undefined): Promise<void> {
    let reply: JsonRpcMessage;
    let asker: Pending | undefined;
    try {
      if (method === 'ping') reply = { jsonrpc: '2.0', id, result: {} };
      else {
        if (related !== undefined) {
          // Named: only that request's client is asked; a request that is over takes no questions.
          asker = this.pending.get(related);
          if (!asker) throw new UpstreamError(-32603, 'The request this question belongs to is over');
        } else asker = this.soleAsker();
        const handler = asker?.onRequest ?? this.onRequest;
        if (!handler) throw new UpstreamError(-32601, `This client does not answer ${method}`);
        reply = { jsonrpc: '2.0', id, result: await handler(method, params) };
      }
    } catch (error) {
      const code = typeof (error as { code?: unknown }).code === 'number' ? (error as { code: number }).code : -32603;
      reply = { jsonrpc: '2.0', id, error: { code, message: error instanceof Error ? error.message : String(error) } };
    }
    // A question of a request that was cancelled meanwhile is not answered: the upstream dropped it.
    const abandoned = asker !== undefined && ![...this.pending.values()].includes(asker);
    if (!this.gone && !abandoned) await this.channel.send(reply, { headers: asker?.headers }).catch(() => undefined);
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
    if (found?.overlapped) throw new UpstreamError(-32603, 'The upstream asked a question after several requests were in flight, and this transport cannot tell which one it is for');
    return found;
  }

  private lost(error: Error, tell = true): void {
    if (this.gone) return;
    this.gone = error;
    const gone = new UpstreamGoneError(error.message);
    for (const entry of [...this.pending.values()]) entry.reject(gone);
    this.pending.clear();
    this.waiting = 0;
    this.byToken.clear();
    if (tell) this.onclose?.(error);
  }
}
