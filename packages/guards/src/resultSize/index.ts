export { MaxResultSize, resultSizeLimit } from './resultSizeLimit';
export type { ResultSizeOptions, ResultSizeSettings } from './resultSizeLimit';
export { truncationMarker } from './truncate';
