import { InvalidParamsError } from '../errors';
import { clip, echo } from '../protocol';
import type { MethodHandler } from '../runtime/Dispatcher';
import type { FeatureHost } from './FeatureHost';
import type { CorePlugin } from '../runtime/plugins';
import type { RegisteredPrompt } from '../runtime/buildPrompt';
import { pageFor, perCaller } from './listFor';
import { invokeKeepingMeaning } from './invokeOutsideTools';
import { routeAll } from './routeAll';

/** `core:prompts`: the prompt methods, and the `prompts` capability while the server has prompts. */
export function promptsPlugin(host: FeatureHost): CorePlugin {
  return {
    name: 'core:prompts',
    register(plugin) {
      routeAll(plugin, promptHandlers(host));
      plugin.capability('prompts', () => (host.prompts.size > 0 ? { listChanged: true } : undefined));
    },
  };
}

/** `prompts/list` and `prompts/get`. */
export function promptHandlers(host: FeatureHost): Record<string, MethodHandler> {
  const list: MethodHandler = (params, ctx) => {
    const { page, items } = pageFor(host, host.promptPages, params.cursor, ctx);
    const answer = (visible: readonly RegisteredPrompt[]) => {
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
    // This server's rules first (its authentication too), then the mounted server's own.
    await host.access.check(prompt.target, ctx);
    if (prompt.mounted) return prompt.mounted.forward('prompts/get', { ...params, name: prompt.mounted.childKey }, ctx);
    const given = params.arguments ?? {};
    if (typeof given !== 'object' || given === null || Array.isArray(given)) {
      throw new InvalidParamsError(`Invalid arguments for prompt "${name}": "arguments" must be an object of strings`);
    }
    const missing = prompt.arguments.filter((a) => a.required && (given as Record<string, unknown>)[a.name] === undefined);
    if (missing.length > 0) {
      throw new InvalidParamsError(
        `Missing required argument${missing.length > 1 ? 's' : ''} for prompt "${name}": ${missing.map((a) => a.name).join(', ')}`,
        { missing: missing.map((a) => a.name) },
      );
    }
    const callArgs: unknown[] = [];
    if (prompt.argsValidator) {
      const outcome = await prompt.argsValidator.validate(given);
      if (!outcome.ok) throw new InvalidParamsError(`Invalid arguments for prompt "${name}": ${outcome.errors.join('; ')}`);
      if (prompt.takesArgs) callArgs.push(outcome.value);
    }
    callArgs.push(ctx);
    return shapePrompt(await invokeKeepingMeaning(host, prompt.target, callArgs, ctx));
  };

  return { 'prompts/list': list, 'prompts/get': get };
}

/** A string becomes one user text message; a message array or a full result passes through. */
function shapePrompt(value: unknown): Record<string, unknown> {
  if (typeof value === 'string') return { messages: [{ role: 'user', content: { type: 'text', text: value } }] };
  if (Array.isArray(value)) return { messages: value };
  if (typeof value === 'object' && value !== null && Array.isArray((value as { messages?: unknown }).messages)) {
    return value as Record<string, unknown>;
  }
  throw new TypeError('A prompt must return a string, an array of messages, or { messages, description? }');
}
