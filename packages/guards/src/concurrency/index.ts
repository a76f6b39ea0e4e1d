export { CONCURRENCY_RETRY_AFTER_MS, ConcurrencyLimit, concurrencyLimit } from './concurrencyLimit';
export type { ConcurrencyOptions } from './concurrencyLimit';
export type { ConcurrencySettings } from './Gate';
