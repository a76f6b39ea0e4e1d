/**
 * `@typemcp/core/build`: what `typemcp build` asks of the framework. Not for servers: a
 * server never imports it, and a bundle holds none of it.
 */
export { collectSchemas } from './collect';
export type { CollectedSchemas } from './collect';
export { generateValidatorsModule } from './standalone';
export { generateIconsModule } from './icons';
export { collectServers } from './servers';
