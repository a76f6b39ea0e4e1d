import type { Revision } from '../protocol';
import type { ClientCapabilities, Implementation, LoggingLevel } from './types';

export type SessionState = 'awaiting-initialize' | 'initializing' | 'ready' | 'closed';

/** How a session reaches its client; implemented by the runtime's connection. */
export interface SessionChannel {
  request(method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>>;
}

/**
 * One handshake-era conversation with a client: the negotiated revision, the client's
 * capabilities and identity, and its log level. A session is its own request scope (a
 * RequestScope: the handshake era serves every request of the session with it).
 */
export class Session {
  private givenId: string | undefined;
  state: SessionState = 'awaiting-initialize';
  clientCapabilities: ClientCapabilities = {};
  clientInfo: Implementation | undefined;
  logLevel: LoggingLevel | undefined;
  /** True when the session lives for one stateless HTTP request only. */
  stateless = false;
  /** @internal The client's roots once asked for; dropped when it says they changed. */
  rootsCache: Promise<unknown[]> | undefined;
  /** @internal The server capabilities this session was told of (list_changed goes only where `listChanged` was). */
  declaredCapabilities: Record<string, unknown> = {};
  /** Resource uris this client subscribed to with `resources/subscribe`. */
  readonly subscriptions = new Set<string>();
  /** @internal Told of every change to what other replicas must know of the session (shared sessions). */
  onChange: (() => void) | undefined;

  constructor(
    private readonly channel: SessionChannel,
    /** @internal What the session's messages can carry: the newest revision until `initialize` negotiates one. */
    public revision: Revision,
    id?: string,
  ) {
    this.givenId = id;
  }

  /** The transport's session id where it has one (`Mcp-Session-Id` over HTTP), else a random one, made when first read. */
  get id(): string {
    return (this.givenId ??= crypto.randomUUID());
  }

  /** The negotiated protocol version. */
  get protocolVersion(): string {
    return this.revision.version;
  }

  get session(): Session {
    return this;
  }

  /** @internal Called after the session's state, log level or subscriptions changed. */
  changed(): void {
    this.onChange?.();
  }

  /** Sends `ping` to the client and resolves when it answers. */
  async ping(): Promise<void> {
    await this.channel.request('ping');
  }
}
