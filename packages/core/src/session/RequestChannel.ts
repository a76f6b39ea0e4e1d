import type { OutgoingRequestOptions, RequestId } from '../protocol';
import type { RequestScope } from './RequestScope';
import type { LoggingLevel } from './types';

/**
 * How a request reaches its client: what `ctx.progress`, `ctx.log`, `ctx.sample`,
 * `ctx.elicit` and `ctx.roots` travel on. The request's era provides it.
 */
export interface RequestChannel {
  notify(method: string, params: Record<string, unknown>, relatedRequestId: RequestId): void;
  request(
    method: string,
    params: Record<string, unknown> | undefined,
    options: OutgoingRequestOptions & {
      relatedRequestId?: RequestId;
      /** Names the question in a 2026-07-28 `input_required` result. */
      inputKey?: string;
    },
  ): Promise<Record<string, unknown>>;
  log(scope: RequestScope, level: LoggingLevel, data: unknown, logger: string | undefined, relatedRequestId: RequestId): void;
  /** 2026-07-28: what the handler carries from one round of the request to the next, in its signed state. */
  readonly carried?: Record<string, unknown>;
}
