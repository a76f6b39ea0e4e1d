import { InvalidParamsError } from '../errors';
import { clip, echo } from '../protocol';
import type { MethodHandler } from '../runtime/Dispatcher';
import type { FeatureCatalog } from './rooms';
import type { CorePlugin } from '../runtime/plugins';
import type { PromptItem } from '../items/PromptItem';
import { pageFor, perCaller } from './listFor';
import { routeAll } from './routeAll';

/** What the prompt methods read: the prompts, their pages and their access rules. */
type PromptsCatalog = Pick<FeatureCatalog, 'prompts' | 'promptPages' | 'access'>;

/** `core:prompts`: the prompt methods, and the `prompts` capability while the server has prompts. */
export function promptsPlugin(host: PromptsCatalog): CorePlugin {
  return {
    name: 'core:prompts',
    register(plugin) {
      routeAll(plugin, promptHandlers(host));
      plugin.capability('prompts', () => (host.prompts.size > 0 ? { listChanged: true } : undefined));
    },
  };
}

/** `prompts/list` and `prompts/get`. */
export function promptHandlers(host: PromptsCatalog): Record<string, MethodHandler> {
  const list: MethodHandler = (params, ctx) => {
    const { page, items } = pageFor(host, host.promptPages, params.cursor, ctx);
    const answer = (visible: readonly PromptItem[]) => {
      const prompts = visible.map((p) => p.listing(ctx.revision));
      return perCaller(page.nextCursor === undefined ? { prompts } : { prompts, nextCursor: page.nextCursor }, host, ctx);
    };
    return items instanceof Promise ? items.then(answer) : answer(items);
  };

  const get: MethodHandler = async (params, ctx) => {
    const name = params.name;
    if (typeof name !== 'string') throw new InvalidParamsError('prompts/get needs a string "name"');
    const prompt = host.prompts.get(name);
    if (!prompt) throw new InvalidParamsError(`Unknown prompt: ${clip(name)}`, { name: echo(name) });
    // This server's rules (its authentication too); a prompt another server serves is checked there as well.
    await host.access.check(prompt.target, ctx);
    return prompt.get(params, ctx);
  };

  return { 'prompts/list': list, 'prompts/get': get };
}
