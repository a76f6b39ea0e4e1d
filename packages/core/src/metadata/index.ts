export { MetadataStore, metadataStore } from './MetadataStore';
export type * from './definitions';
