import type { DependencyContainer } from 'tsyringe';
import type { RequestId } from '../protocol';
import type { ClientCapabilities, Implementation, RequestScope, Session } from '../session';

/** What the runtime gives a Context; internal. */
export interface ContextInit {
  requestId: RequestId;
  method: string;
  scope: RequestScope;
  container: DependencyContainer;
}

/**
 * The request being handled, as a handler sees it. The same object serves every protocol
 * era: where a value comes from (session or the request itself) is the runtime's business.
 * Inject it as a method parameter (`ctx: Context`) or a constructor parameter.
 */
export class Context {
  private controller: AbortController | undefined;
  private childContainer: DependencyContainer | undefined;

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

  /** @internal True once the request was cancelled. */
  get cancelled(): boolean {
    return this.controller?.signal.aborted ?? false;
  }

  /** @internal Aborts the signal; a signal first read after this is already aborted. */
  cancel(reason: unknown): void {
    (this.controller ??= new AbortController()).abort(reason);
  }
}
