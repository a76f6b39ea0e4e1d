export type { DpopNonceOptions, DpopOptions } from './options';
export type { DpopReplayCache } from './replay';
export { MemoryDpopReplayCache } from './replay';
export { dpopBound } from './resource';
