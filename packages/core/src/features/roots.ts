import { ClientCapabilityError, InvalidClientResponseError } from '../errors';
import type { ClientRequestOptions, Context } from '../runtime/Context';
import type { CorePlugin } from '../runtime/plugins';
import { ClientFeatureServices } from '../runtime/services';
import type { Root } from '../runtime/samplingTypes';
import { statelessRefusal } from './statelessRefusal';

/** `core:roots`: `ctx.roots()`, and the notification that drops its cache. */
export const rootsPlugin: CorePlugin = {
  name: 'core:roots',
  register(plugin) {
    plugin.provide(ClientFeatureServices.roots, listRoots);
    plugin.onNotification('notifications/roots/list_changed', (_params, scope) => {
      if (scope.session) scope.session.rootsCache = undefined;
    });
  },
};

/**
 * `ctx.roots()`: the client's `roots/list`, cached per session until the client sends
 * `notifications/roots/list_changed`.
 */
export function listRoots(ctx: Context, options: ClientRequestOptions = {}): Promise<Root[]> {
  if (!ctx.clientCapabilities.roots) {
    const stateless = statelessRefusal(ctx, 'roots', 'for its roots');
    if (stateless) return Promise.reject(stateless);
    return Promise.reject(new ClientCapabilityError('roots', 'The client did not declare the "roots" capability, so it cannot be asked for its roots'));
  }
  const session = ctx.session;
  const cached = session?.rootsCache as Promise<Root[]> | undefined;
  if (cached) return cached;
  const fetched = ctx.requestClient('roots/list', undefined, options).then(checkRoots);
  if (session) {
    session.rootsCache = fetched;
    // A failed fetch is not remembered: the next call asks again.
    fetched.catch(() => {
      if (session.rootsCache === fetched) session.rootsCache = undefined;
    });
  }
  return fetched;
}

function checkRoots(result: Record<string, unknown>): Root[] {
  const roots = result.roots;
  const valid =
    Array.isArray(roots) &&
    roots.every((r) => typeof r === 'object' && r !== null && typeof r.uri === 'string' && (r.name === undefined || typeof r.name === 'string'));
  if (!valid) {
    throw InvalidClientResponseError.about('roots/list', 'expected { roots: [{ uri, name? }] }', result);
  }
  return roots as Root[];
}
