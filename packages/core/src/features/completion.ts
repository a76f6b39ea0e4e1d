import { InvalidParamsError } from '../errors';
import { clip, echo } from '../protocol';
import type { MethodHandler } from '../runtime/Dispatcher';
import type { FeatureCatalog } from './rooms';
import type { CorePlugin } from '../runtime/plugins';
import { routeAll } from './routeAll';

/** What completing reads: the prompts and templates completed, their access rules, and whether anything completes. */
type CompletionCatalog = Pick<FeatureCatalog, 'prompts' | 'resources' | 'templates' | 'access' | 'hasCompletions'>;

/** `core:completion`: `completion/complete`, and the `completions` capability where the version has it and completions exist. */
export function completionPlugin(host: CompletionCatalog): CorePlugin {
  return {
    name: 'core:completion',
    register(plugin) {
      routeAll(plugin, completionHandlers(host));
      plugin.capability('completions', (_version, revision) => (host.hasCompletions() && revision.completions ? {} : undefined));
    },
  };
}

/** `completion/complete` for prompt arguments and resource-template variables. */
export function completionHandlers(host: CompletionCatalog): Record<string, MethodHandler> {
  const complete: MethodHandler = async (params, ctx) => {
    const ref = params.ref as Record<string, unknown> | undefined;
    const argument = params.argument as Record<string, unknown> | undefined;
    if (typeof argument?.name !== 'string' || typeof argument.value !== 'string') {
      throw new InvalidParamsError('completion/complete needs "argument" with string "name" and "value"');
    }
    if (ref?.type === 'ref/prompt' && typeof ref.name === 'string') {
      const prompt = host.prompts.get(ref.name);
      if (!prompt) throw new InvalidParamsError(`Unknown prompt: ${clip(String(ref.name))}`, { name: echo(ref.name) });
      // Completing the arguments of a prompt takes the right to use it.
      await host.access.check(prompt.target, ctx);
      return prompt.complete(params, ctx);
    }
    if (ref?.type === 'ref/resource' && typeof ref.uri === 'string') {
      const resource = host.templates.get(ref.uri) ?? host.resources.get(ref.uri);
      if (!resource) throw new InvalidParamsError(`Unknown resource or template: ${clip(String(ref.uri))}`, { uri: echo(ref.uri) });
      await host.access.check(resource.target, ctx);
      return resource.complete(params, ctx);
    }
    throw new InvalidParamsError('completion/complete needs "ref" of type "ref/prompt" (with "name") or "ref/resource" (with "uri")');
  };
  return { 'completion/complete': complete };
}

