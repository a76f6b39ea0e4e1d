import type { EraName } from '../protocol';
import type { MethodHandler } from '../runtime/Dispatcher';

/** Routes every handler of a feature, each in every era or in the eras named. */
export function routeAll(
  plugin: { route(method: string, handler: MethodHandler, eras?: readonly EraName[]): void },
  handlers: Record<string, MethodHandler>,
  eras?: Readonly<Record<string, readonly EraName[]>>,
): void {
  for (const [method, handler] of Object.entries(handlers)) plugin.route(method, handler, eras?.[method]);
}
