import { ConnectionClosedError, McpError, RequestTimeoutError } from '../errors';
import type { JsonRpcErrorResponse, JsonRpcResultResponse, RequestId } from './messages';

interface Pending {
  method: string;
  resolve(result: Record<string, unknown>): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout | undefined;
  cleanup: (() => void) | undefined;
}

export interface OutgoingRequestOptions {
  /** Milliseconds before the request fails with RequestTimeoutError; 0 waits forever. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/**
 * Correlates requests we send with the responses that come back: ids, timeouts,
 * cancellation, and failing everything still open when the connection ends.
 */
export class PendingRequests {
  private nextId = 0;
  private readonly open = new Map<RequestId, Pending>();

  /** With a prefix, ids are strings `<prefix><n>` (replicas tell their requests apart); numbers without. */
  constructor(private readonly idPrefix?: string) {}

  /**
   * Registers a request and returns its id and the promise of its result. `onAbandon` is
   * called with the id when the request times out or is aborted, so the peer can be told.
   */
  start(
    method: string,
    options: OutgoingRequestOptions,
    onAbandon: (id: RequestId, reason: string) => void,
  ): { id: RequestId; result: Promise<Record<string, unknown>> } {
    const id: RequestId = this.idPrefix === undefined ? this.nextId++ : `${this.idPrefix}${this.nextId++}`;
    const result = new Promise<Record<string, unknown>>((resolve, reject) => {
      const entry: Pending = { method, resolve, reject, timer: undefined, cleanup: undefined };
      const abandon = (error: Error, reason: string) => {
        if (!this.settle(id)) return;
        onAbandon(id, reason);
        reject(error);
      };
      if (options.timeoutMs) {
        entry.timer = setTimeout(
          () => abandon(new RequestTimeoutError(`Request "${method}" timed out after ${options.timeoutMs} ms`), 'timeout'),
          options.timeoutMs,
        );
        entry.timer.unref?.();
      }
      const signal = options.signal;
      if (signal) {
        const onAbort = () => abandon(abortError(signal, method), String(signal.reason ?? 'aborted'));
        if (signal.aborted) {
          this.open.set(id, entry);
          queueMicrotask(onAbort);
          return;
        }
        signal.addEventListener('abort', onAbort, { once: true });
        entry.cleanup = () => signal.removeEventListener('abort', onAbort);
      }
      this.open.set(id, entry);
    });
    return { id, result };
  }

  /** Routes a response; returns false when no request with that id is open. */
  complete(response: JsonRpcResultResponse | JsonRpcErrorResponse): boolean {
    const id = response.id;
    if (id === undefined) return false;
    const entry = this.open.get(id);
    if (!entry) return false;
    this.settle(id);
    if ('result' in response) entry.resolve(response.result);
    else entry.reject(new McpError(response.error.code, response.error.message, response.error.data));
    return true;
  }

  /** Fails every open request, e.g. when the connection closes. */
  rejectAll(reason = 'Connection closed'): void {
    for (const [id, entry] of [...this.open]) {
      this.settle(id);
      entry.reject(new ConnectionClosedError(`${reason} before "${entry.method}" was answered`));
    }
  }

  get size(): number {
    return this.open.size;
  }

  private settle(id: RequestId): boolean {
    const entry = this.open.get(id);
    if (!entry) return false;
    this.open.delete(id);
    if (entry.timer) clearTimeout(entry.timer);
    entry.cleanup?.();
    return true;
  }
}

function abortError(signal: AbortSignal, method: string): Error {
  return signal.reason instanceof Error ? signal.reason : new Error(`Request "${method}" was cancelled`);
}
