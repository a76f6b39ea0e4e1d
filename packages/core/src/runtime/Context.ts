import type { DependencyContainer } from 'tsyringe';
import type { RequestId } from '../protocol';
import type { ClientCapabilities, Implementation, LoggingLevel, RequestScope, Session } from '../session';
import { createLogger } from './Logger';
import type { Logger } from './Logger';

/** How a Context reaches the client of its request; provided by the transport side. */
export interface RequestChannel {
  notify(method: string, params: Record<string, unknown>, relatedRequestId: RequestId): void;
  log(scope: RequestScope, level: LoggingLevel, data: unknown, logger: string | undefined, relatedRequestId: RequestId): void;
}

/** What the runtime gives a Context; internal. */
export interface ContextInit {
  requestId: RequestId;
  method: string;
  scope: RequestScope;
  container: DependencyContainer;
  channel: RequestChannel;
  /** `params._meta.progressToken` of the request, if it asked for progress. */
  progressToken?: string | number;
}

/**
 * The request being handled, as a handler sees it. The same object serves every protocol
 * era: where a value comes from (session or the request itself) is the runtime's business.
 * Inject it as a method parameter (`ctx: Context`) or a constructor parameter.
 */
export class Context {
  private controller: AbortController | undefined;
  private childContainer: DependencyContainer | undefined;
  private logger: Logger | undefined;
  private lastProgress = -Infinity;
  private finished = false;

  /** @internal */
  constructor(private readonly init: ContextInit) {}

  get requestId(): RequestId {
    return this.init.requestId;
  }

  /** The JSON-RPC method being served, e.g. `tools/call`. */
  get method(): string {
    return this.init.method;
  }

  /** Aborted when the client cancels the request or the connection closes. */
  get signal(): AbortSignal {
    return (this.controller ??= new AbortController()).signal;
  }

  get protocolVersion(): string {
    return this.init.scope.protocolVersion;
  }

  get clientInfo(): Implementation | undefined {
    return this.init.scope.clientInfo;
  }

  get clientCapabilities(): ClientCapabilities {
    return this.init.scope.clientCapabilities;
  }

  /** The handshake-era session; undefined for stateless requests. */
  get session(): Session | undefined {
    return this.init.scope.session;
  }

  /** The request's own child container, created on first use, with this Context registered. */
  get container(): DependencyContainer {
    if (!this.childContainer) {
      this.childContainer = this.init.container.createChildContainer();
      this.childContainer.register(Context, { useValue: this });
    }
    return this.childContainer;
  }

  /**
   * Log messages to the client (`notifications/message`), filtered by the level the client
   * asked for. `data` is any JSON value; `logger` names the source.
   */
  get log(): Logger {
    return (this.logger ??= createLogger((level, data, logger) =>
      this.init.channel.log(this.init.scope, level, data, logger, this.init.requestId),
    ));
  }

  /**
   * Reports progress when the client asked for it (a `progressToken`); otherwise does
   * nothing. Values must increase; a value not above the last one, or a call after the
   * response, is dropped.
   */
  progress(value: number, total?: number, message?: string): void {
    const token = this.init.progressToken;
    if (token === undefined || this.finished || !(value > this.lastProgress)) return;
    this.lastProgress = value;
    const params: Record<string, unknown> = { progressToken: token, progress: value };
    if (total !== undefined) params.total = total;
    if (message !== undefined && this.protocolVersion >= '2025-03-26') params.message = message;
    this.init.channel.notify('notifications/progress', params, this.init.requestId);
  }

  /** @internal Called when the response is about to go out; nothing may follow it. */
  finish(): void {
    this.finished = true;
  }

  /** @internal True once the request was cancelled. */
  get cancelled(): boolean {
    return this.controller?.signal.aborted ?? false;
  }

  /** @internal Aborts the signal; a signal first read after this is already aborted. */
  cancel(reason: unknown): void {
    (this.controller ??= new AbortController()).abort(reason);
  }
}
