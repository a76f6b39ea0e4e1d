import { ErrorCode } from '../../errors';

/**
 * The HTTP head of a rate-limited answer (draft SEP-3304): 429, `Retry-After` in whole seconds
 * (rounded up, so a client that honours it is not refused again), and `RateLimit-Limit` /
 * `RateLimit-Remaining` when the error tells them. Undefined for any other error.
 */
export function rateLimitedHead(error: { code: number; data?: unknown }): { status: number; headers: Record<string, string> } | undefined {
  if (error.code !== ErrorCode.RateLimited) return undefined;
  const data = (typeof error.data === 'object' && error.data !== null ? error.data : {}) as { retryAfterMs?: unknown; limit?: unknown; remaining?: unknown };
  const retryAfterMs = typeof data.retryAfterMs === 'number' && Number.isFinite(data.retryAfterMs) ? Math.max(0, data.retryAfterMs) : 1000;
  const headers: Record<string, string> = { 'retry-after': String(Math.ceil(retryAfterMs / 1000)) };
  if (isCount(data.limit)) headers['ratelimit-limit'] = String(data.limit);
  if (isCount(data.remaining)) headers['ratelimit-remaining'] = String(data.remaining);
  return { status: 429, headers };
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}
