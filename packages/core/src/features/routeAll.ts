import type { MethodHandler } from '../runtime/FeatureHost';

/** Routes every handler of a feature. */
export function routeAll(plugin: { route(method: string, handler: MethodHandler): void }, handlers: Record<string, MethodHandler>): void {
  for (const [method, handler] of Object.entries(handlers)) plugin.route(method, handler);
}
