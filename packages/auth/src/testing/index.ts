export { TestIssuer } from './TestIssuer';
export type { TestIssuerOptions, TestIssuerClient, TokenOptions, ServedRequest } from './options';
