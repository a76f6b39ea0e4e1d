import type { Context } from '../runtime/Context';
import type { ItemHost } from './ItemHost';

/** The specification's cap on values in one completion answer. */
export const MAX_COMPLETION_VALUES = 100;

export function completionKey(options: { prompt: string; argument: string } | { resource: string; argument: string }): string {
  return 'prompt' in options ? `prompt\u0000${options.prompt}\u0000${options.argument}` : `resource\u0000${options.resource}\u0000${options.argument}`;
}

/** A `completion/complete` answer with nothing to offer. */
export function noCompletion(): Record<string, unknown> {
  return { completion: { values: [], total: 0, hasMore: false } };
}

/**
 * `completion/complete` of an argument of one of the server's own prompts or templates: its
 * `@Completion` method, checked by its own access rules, capped at 100 values. `params` were
 * checked by the handler (`argument` has a string `name` and `value`).
 */
export async function completeLocally(
  host: Pick<ItemHost, 'invoke' | 'access' | 'completions'>,
  key: string,
  params: Record<string, unknown>,
  ctx: Context,
): Promise<Record<string, unknown>> {
  const completer = host.completions.get(key);
  if (!completer) return noCompletion();
  const argument = params.argument as { name: string; value: string };
  const context = (params.context as { arguments?: Record<string, string> } | undefined)?.arguments ?? {};
  await host.access.check(completer.invocation, ctx);
  const answer = await host.invoke(completer.invocation, [argument.value, { arguments: context }, ctx], ctx);
  return { completion: capValues(answer) };
}

function capValues(answer: unknown): { values: string[]; total: number; hasMore: boolean } {
  type Answer = { values: unknown[]; total?: number; hasMore?: boolean };
  const given: Answer = Array.isArray(answer) ? { values: answer } : ((answer ?? { values: [] }) as Answer);
  if (!Array.isArray(given.values)) throw new TypeError('A completion must return string[] or { values, total?, hasMore? }');
  const all = given.values.map(String);
  const values = all.slice(0, MAX_COMPLETION_VALUES);
  const total = Math.max(given.total ?? all.length, all.length);
  return { values, total, hasMore: given.hasMore ?? total > values.length };
}
