import type { ClusterOptions } from '../cluster';
import { DefinitionError } from '../errors';
import type { ClientFeatures } from './Context';
import type { ServiceKey } from './plugins';

/**
 * The cluster the server is a replica of (`host.provide(ClusterService, options)`; one per
 * server, `@typemcp/redis` and the core `cluster` plugin provide it): sessions, SSE events,
 * change notifications and client answers are shared through its stores, so any replica behind
 * a load balancer serves any request. The server refuses it without `requestState.secret`.
 */
export const ClusterService: ServiceKey<ClusterOptions> = {
  name: 'cluster',
  check(value) {
    const cluster = value as Partial<ClusterOptions> | null;
    const parts = ['sessions', 'events', 'broadcaster'] as const;
    if (typeof cluster !== 'object' || cluster === null || parts.some((part) => typeof cluster[part] !== 'object' || cluster[part] === null)) {
      throw new TypeError('ClusterService needs an object with sessions, events and broadcaster');
    }
    if (cluster.replicaId !== undefined && !/^[A-Za-z0-9_-]{1,64}$/.test(cluster.replicaId)) {
      throw new DefinitionError('INVALID_OPTION', `ClusterService: replicaId must be 1 to 64 letters, digits, "_" or "-", not ${JSON.stringify(cluster.replicaId)}`);
    }
  },
};

function clientFeature<Feature extends keyof ClientFeatures>(feature: Feature): ServiceKey<ClientFeatures[Feature]> {
  return {
    name: `client feature "${feature}"`,
    check(value) {
      if (typeof value !== 'function') throw new TypeError(`the client feature "${feature}" is a function`);
    },
  };
}

/** `ctx.sample()`, `ctx.elicit()` and `ctx.roots()`, as the built-in features provide them. */
export const ClientFeatureServices: { readonly [Feature in keyof ClientFeatures]: ServiceKey<ClientFeatures[Feature]> } = {
  sample: clientFeature('sample'),
  elicit: clientFeature('elicit'),
  roots: clientFeature('roots'),
};
