import { InvalidParamsError } from '../errors';
import { clip, echo } from '../protocol';
import type { MethodHandler } from '../runtime/Dispatcher';
import type { FeatureHost } from './FeatureHost';
import type { CorePlugin } from '../runtime/plugins';
import { routeAll } from './routeAll';

/** `core:completion`: `completion/complete`, and the `completions` capability where the version has it and completions exist. */
export function completionPlugin(host: FeatureHost): CorePlugin {
  return {
    name: 'core:completion',
    register(plugin) {
      routeAll(plugin, completionHandlers(host));
      plugin.capability('completions', (_version, revision) => (host.hasCompletions() && revision.completions ? {} : undefined));
    },
  };
}

/** The specification's cap on values in one completion answer. */
export const MAX_COMPLETION_VALUES = 100;

/** `completion/complete` for prompt arguments and resource-template variables. */
export function completionHandlers(host: FeatureHost): Record<string, MethodHandler> {
  const complete: MethodHandler = async (params, ctx) => {
    const ref = params.ref as Record<string, unknown> | undefined;
    const argument = params.argument as Record<string, unknown> | undefined;
    if (typeof argument?.name !== 'string' || typeof argument.value !== 'string') {
      throw new InvalidParamsError('completion/complete needs "argument" with string "name" and "value"');
    }
    let key: string;
    if (ref?.type === 'ref/prompt' && typeof ref.name === 'string') {
      const prompt = host.prompts.get(ref.name);
      if (!prompt) throw new InvalidParamsError(`Unknown prompt: ${clip(String(ref.name))}`, { name: echo(ref.name) });
      // Completing the arguments of a prompt takes the right to use it.
      await host.access.check(prompt.target, ctx);
      if (prompt.mounted) return prompt.mounted.forward('completion/complete', { ...params, ref: { ...ref, name: prompt.mounted.childKey } }, ctx);
      key = completionKey({ prompt: ref.name, argument: argument.name });
    } else if (ref?.type === 'ref/resource' && typeof ref.uri === 'string') {
      const resource = host.templates.get(ref.uri) ?? host.resources.get(ref.uri);
      if (!resource) throw new InvalidParamsError(`Unknown resource or template: ${clip(String(ref.uri))}`, { uri: echo(ref.uri) });
      await host.access.check(resource.target, ctx);
      if (resource.mounted) return resource.mounted.forward('completion/complete', { ...params, ref: { ...ref, uri: resource.mounted.childKey } }, ctx);
      key = completionKey({ resource: ref.uri, argument: argument.name });
    } else {
      throw new InvalidParamsError('completion/complete needs "ref" of type "ref/prompt" (with "name") or "ref/resource" (with "uri")');
    }

    const completer = host.completions.get(key);
    if (!completer) return { completion: { values: [], total: 0, hasMore: false } };
    const context = (params.context as { arguments?: Record<string, string> } | undefined)?.arguments ?? {};
    await host.access.check(completer.invocation, ctx);
    const answer = await host.invoke(completer.invocation, [argument.value, { arguments: context }, ctx], ctx);
    return { completion: capValues(answer) };
  };
  return { 'completion/complete': complete };
}

export function completionKey(options: { prompt: string; argument: string } | { resource: string; argument: string }): string {
  return 'prompt' in options ? `prompt\u0000${options.prompt}\u0000${options.argument}` : `resource\u0000${options.resource}\u0000${options.argument}`;
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
