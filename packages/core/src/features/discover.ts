import type { CorePlugin } from '../runtime/plugins';
import type { FeatureServer } from './rooms';

/** `core:discover`: `server/discover` (2026-07-28), the versions, capabilities and instructions of the server. */
export function discoverPlugin(server: Pick<FeatureServer, 'describe'>): CorePlugin {
  return {
    name: 'core:discover',
    register: (plugin) => plugin.route('server/discover', (_params, ctx) => server.describe(ctx), ['modern']),
  };
}
