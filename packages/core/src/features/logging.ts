import { InvalidParamsError, InvalidRequestError } from '../errors';
import { quote } from '../protocol';
import { isLoggingLevel } from '../runtime/Logger';
import type { MethodHandler } from '../runtime/Dispatcher';
import type { CorePlugin } from '../runtime/plugins';
import { routeAll } from './routeAll';
import { LOGGING_LEVELS } from '../session';

/** `core:logging`: `logging/setLevel` and the `logging` capability. */
export const loggingPlugin: CorePlugin = {
  name: 'core:logging',
  register(plugin) {
    // The level is the session's: without a handshake each request names its own in `_meta`.
    routeAll(plugin, loggingHandlers(), { 'logging/setLevel': ['handshake'] });
    plugin.capability('logging', {});
  },
};

/** `logging/setLevel`: the session's threshold for `notifications/message`. */
export function loggingHandlers(): Record<string, MethodHandler> {
  const setLevel: MethodHandler = (params, ctx) => {
    if (!isLoggingLevel(params.level)) {
      throw new InvalidParamsError(`Unknown logging level ${quote(params.level)}; use one of ${LOGGING_LEVELS.join(', ')}`);
    }
    if (ctx.session?.stateless) throw new InvalidRequestError('logging/setLevel needs a session; this server is stateless');
    if (ctx.session) {
      ctx.session.logLevel = params.level;
      ctx.session.changed();
    }
    return {};
  };
  return { 'logging/setLevel': setLevel };
}
