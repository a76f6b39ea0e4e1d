/** How a limit counts: a sliding window (the last `windowMs`), or a token bucket refilled evenly over `windowMs`. */
export type RateAlgorithm = 'sliding-window' | 'token-bucket';

/** One limit as a store applies it: at most `limit` requests per `windowMs`. */
export interface RateRule {
  readonly limit: number;
  readonly windowMs: number;
  readonly algorithm: RateAlgorithm;
}

/** A store's answer for one request. */
export interface RateDecision {
  readonly allowed: boolean;
  /** Requests left now (0 when refused). */
  readonly remaining: number;
  /** When a refused request may be tried again, in ms (0 when allowed). */
  readonly retryAfterMs: number;
}

/**
 * Where rate limits are counted: in memory (`MemoryRateLimitStore`, one replica) or shared by
 * replicas (`RedisRateLimitStore` in `@typemcp/redis`). `take` counts one request against `key`
 * under `rule` and answers whether it is allowed, atomically (two replicas taking the last unit
 * at once: one is refused). The store's own clock decides (Redis's, for every replica alike).
 * A store that cannot answer rejects (or throws); the plugin then fails open or closed as its
 * author chose. A store that can answer at once (the memory store) answers the decision itself,
 * not a promise: a request it allows then stays synchronous, as a synchronous handler answers it.
 */
export interface RateLimitStore {
  take(key: string, rule: RateRule): RateDecision | Promise<RateDecision>;
}
