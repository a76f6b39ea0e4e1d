import { declareGuard } from '../items';
import { checkItemLimit } from './options';
import type { ItemRateLimit } from './options';

/** The key the `rateLimit` plugin reads `@RateLimit` by. */
export const RATE_LIMIT_KEY = 'guards:rate-limit';

/**
 * Limits how often callers may call this tool, read this resource or get this prompt, when the
 * server adds the `rateLimit` plugin (which counts; the decorator only declares). A limit given
 * for the same item in the plugin's options wins over this one. Items of one `group` share one
 * count. The limit is checked here, where it is written.
 *
 * @example
 * class Search {
 *   @Tool({ description: 'Searches the catalogue' })
 *   @RateLimit({ limit: 5, windowMs: 60_000 })
 *   search(input: SearchInput) { … }
 * }
 */
export function RateLimit(limit: ItemRateLimit): MethodDecorator {
  return (prototype, methodName, descriptor) => {
    const where = `@RateLimit on ${(prototype as { constructor: { name: string } }).constructor.name}.${String(methodName)}`;
    declareGuard(RATE_LIMIT_KEY, checkItemLimit(where, limit))(prototype, methodName, descriptor);
  };
}
