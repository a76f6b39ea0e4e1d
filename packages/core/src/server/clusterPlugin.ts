import type { ClusterOptions } from '../cluster';
import type { Plugin } from '../runtime/plugins';
import { ClusterService } from '../runtime/services';

/**
 * Makes a server one replica of a cluster over the given stores: `server.plugin(cluster,
 * { sessions, events, broadcaster })`. The in-memory stores join servers of one process; a
 * shared store (`@typemcp/redis`) joins processes and machines.
 */
export const cluster: Plugin<ClusterOptions> = {
  name: 'cluster',
  register(host, options) {
    host.provide(ClusterService, options);
  },
};
