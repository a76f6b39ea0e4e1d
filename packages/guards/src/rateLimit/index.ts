export { rateLimit } from './plugin';
export { RateLimit } from './decorator';
export { MemoryRateLimitStore } from './MemoryRateLimitStore';
export type { MemoryRateLimitStoreOptions } from './MemoryRateLimitStore';
export type { RateLimitOptions, RateLimitRule, ItemRateLimit, AddressRateLimit, RatePer } from './options';
export type { RateLimitStore, RateRule, RateDecision, RateAlgorithm } from './RateLimitStore';
