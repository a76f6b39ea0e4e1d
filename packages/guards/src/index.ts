export { callerOf, ClientAddresses } from './callers';
export type { Caller } from './callers';
export type { PerItem } from './items';
export { MaxResultSize, resultSizeLimit, truncationMarker } from './resultSize';
export type { ResultSizeOptions, ResultSizeSettings } from './resultSize';
export { rateLimit, RateLimit, MemoryRateLimitStore } from './rateLimit';
export type { RateLimitOptions, RateLimitRule, ItemRateLimit, AddressRateLimit, RatePer, MemoryRateLimitStoreOptions, RateLimitStore, RateRule, RateDecision, RateAlgorithm } from './rateLimit';
export { ResultCache, CacheResult, MemoryResultCache } from './cache';
export type { CacheScope, CacheSettings, ResultCacheOptions, MemoryResultCacheOptions, ResultCacheStore } from './cache';
