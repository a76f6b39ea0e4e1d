import type { ClientChannel } from './client/channel';
import { UpstreamGoneError, UpstreamSession } from './client/UpstreamSession';
import type { SessionOptions } from './client/UpstreamSession';

/**
 * How the proxy waits between attempts to reach an upstream that went away (exponential
 * backoff).
 */
export interface ReconnectOptions {
  /** The first wait after the upstream went away; each failed attempt doubles it. Default 100 ms. */
  initialDelayMs?: number;
  /** The longest wait between attempts. Default 10 s. */
  maxDelayMs?: number;
}

/** Where the upstream stands. */
export type UpstreamState = 'idle' | 'connecting' | 'connected' | 'reconnecting' | 'closed';

/** How long a session must last for the next reconnection to start again from the shortest wait. */
const STABLE_MS = 5000;

interface Hooks {
  /** A session was opened (the first, or after a reconnection). */
  connected(session: UpstreamSession): Promise<void> | void;
  /** The session was lost; a new one is being sought. */
  lost(error: Error): void;
  report(what: string, error: unknown): void;
}

/**
 * The proxy's connection to its upstream: opened on `start`, opened again with exponential
 * backoff (and jitter) whenever it is lost, until `close`. While it is down, requests fail at
 * once with UpstreamGoneError instead of waiting.
 */
export class Upstream {
  state: UpstreamState = 'idle';
  private session: UpstreamSession | undefined;
  private lastError: Error | undefined;
  private firstConnection: Promise<void> | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private wake: (() => void) | undefined;
  /** Settles the promise of `start()` when the proxy closes before the first connection. */
  private abandonStart: (() => void) | undefined;

  constructor(
    private readonly channel: () => ClientChannel,
    private readonly options: SessionOptions,
    private readonly reconnect: Required<ReconnectOptions>,
    private readonly hooks: Hooks,
  ) {}

  /** Connects; resolves once the first session is open and mirrored (however many attempts that takes). */
  start(): Promise<void> {
    return (this.firstConnection ??= this.run());
  }

  /** The open session, or UpstreamGoneError at once when there is none. */
  current(): UpstreamSession {
    const session = this.session;
    if (session?.alive) return session;
    const why = this.lastError ? `: ${this.lastError.message}` : '';
    if (this.state === 'closed') throw new UpstreamGoneError('the proxy was closed');
    throw new UpstreamGoneError(this.state === 'idle' ? 'the proxy has not been started' : `the upstream is not connected${why}; reconnecting`);
  }

  async close(): Promise<void> {
    this.state = 'closed';
    if (this.timer) clearTimeout(this.timer);
    this.wake?.();
    this.abandonStart?.();
    this.abandonStart = undefined;
    const session = this.session;
    this.session = undefined;
    await session?.close().catch(() => undefined);
  }

  private async run(): Promise<void> {
    let delay = this.reconnect.initialDelayMs;
    let announced: (() => void) | undefined;
    const first = new Promise<void>((resolve) => {
      announced = resolve;
      // Closed before the first connection: start() is over too (upstreamState says 'closed').
      this.abandonStart = resolve;
    });
    const loop = async () => {
      while (!this.closed()) {
        this.state = this.session === undefined && this.lastError === undefined ? 'connecting' : 'reconnecting';
        try {
          const session = await UpstreamSession.open(this.channel(), this.options);
          if (this.closed()) {
            await session.close();
            return;
          }
          const lost = new Promise<Error>((resolve) => (session.onclose = resolve));
          this.session = session;
          this.state = 'connected';
          this.lastError = undefined;
          const connectedAt = Date.now();
          await this.hooks.connected(session);
          announced?.();
          announced = undefined;
          this.abandonStart = undefined;
          const error = await lost;
          if (this.closed()) return;
          this.lastError = error;
          this.session = undefined;
          this.state = 'reconnecting';
          // An upstream that stayed up starts over from the shortest wait; one that dies as it starts keeps backing off.
          if (Date.now() - connectedAt >= STABLE_MS) delay = this.reconnect.initialDelayMs;
          this.hooks.lost(error);
        } catch (error) {
          if (this.closed()) return;
          this.lastError = error instanceof Error ? error : new Error(String(error));
          this.hooks.report('the upstream could not be reached', error);
          await this.session?.close().catch(() => undefined);
          this.session = undefined;
        }
        await this.sleep(delay * (0.8 + Math.random() * 0.4));
        delay = Math.min(delay * 2, this.reconnect.maxDelayMs);
      }
    };
    void loop();
    return first;
  }

  /** Read afresh: `close()` may run while the loop awaits. */
  private closed(): boolean {
    return this.state === 'closed';
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.wake = resolve;
      this.timer = setTimeout(resolve, ms);
    });
  }
}
