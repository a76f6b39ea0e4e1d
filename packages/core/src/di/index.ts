export { ProviderResolver } from './providers';
