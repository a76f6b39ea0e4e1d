export { ClientMetadataError } from './document';
export type { DocumentFetcher, DocumentFetchOptions, FetchedDocument } from './document';
export { nodeDocumentFetcher } from './node';
export { webDocumentFetcher } from './web';
