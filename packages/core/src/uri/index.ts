export { UriTemplate } from './UriTemplate';
export type { UriVariables } from './UriTemplate';
