import { brand } from './brand';
import { ErrorCode } from './ErrorCode';
import { McpError } from './McpError';

/**
 * The caller sent too many requests (-32023, the shape of the draft SEP-3304): `data.retryAfterMs`
 * says when to try again; `limit` and `remaining` describe the window and may be left out (they
 * tell a prober the quota). Over HTTP, a request answered on its own goes out as 429 with
 * `Retry-After` in whole seconds, and `RateLimit-Limit`/`RateLimit-Remaining` when those are set.
 * A limit met by an upstream API inside a tool is a tool error, not this.
 */
export class RateLimitedError extends McpError {
  declare readonly data: { retryAfterMs: number; limit?: number; remaining?: number };

  constructor(message: string, retryAfterMs: number, options: { limit?: number; remaining?: number } = {}) {
    const data: RateLimitedError['data'] = { retryAfterMs: Math.max(0, Math.ceil(retryAfterMs)) };
    if (options.limit !== undefined) data.limit = options.limit;
    if (options.remaining !== undefined) data.remaining = options.remaining;
    super(ErrorCode.RateLimited, message, data);
  }
}

brand(RateLimitedError, 'RateLimitedError');
