export { ResultCache, CacheResult } from './ResultCache';
export type { CacheScope, CacheSettings, ResultCacheOptions } from './ResultCache';
export { MemoryResultCache } from './MemoryResultCache';
export type { MemoryResultCacheOptions } from './MemoryResultCache';
export type { ResultCacheStore } from './ResultCacheStore';
