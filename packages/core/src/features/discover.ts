import type { CorePlugin } from '../runtime/plugins';
import type { FeatureHost } from './FeatureHost';

/** `core:discover`: `server/discover` (2026-07-28), the versions, capabilities and instructions of the server. */
export function discoverPlugin(host: FeatureHost): CorePlugin {
  return {
    name: 'core:discover',
    register: (plugin) => plugin.route('server/discover', (_params, ctx) => host.describe(ctx), ['modern']),
  };
}
