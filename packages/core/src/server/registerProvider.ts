import { DefinitionError } from '../errors';
import type { Catalog } from '../items/Catalog';
import { buildPrompt } from '../items/buildPrompt';
import { buildResource } from '../items/buildResource';
import { buildTool } from '../items/buildTool';
import { completionKey } from '../items/completion';
import type { Completer, ItemHost } from '../items/ItemHost';
import { metadataStore } from '../metadata';
import type { CompletionDefinition, Constructor } from '../metadata';
import { buildSkill } from '../skills';
import type { SkillCatalog } from '../skills';
import type { InvocationTarget } from '../runtime/middleware';
import type { Registry } from '../runtime/Registry';

/**
 * The registries a provider class adds to (the features', with completions that may grow),
 * and the server its items are served by.
 */
export type ProviderRegistries = Catalog & {
  readonly skills: SkillCatalog;
  readonly completions: Map<string, Completer>;
};

/**
 * Builds everything a provider class declares (tools, resources, templates, prompts, skills,
 * completions) and checks it against what is registered: a name taken, a completion of a
 * prompt or template nobody registered. Nothing is added until `commit`, so a class that
 * fails leaves nothing of itself behind.
 */
export function registerProvider(
  registries: ProviderRegistries,
  host: ItemHost,
  provider: Constructor,
): { commit(): void; completions: number; keys: Array<{ kind: 'tool' | 'prompt' | 'resource' | 'template' | 'skill'; key: string; at: string }> } {
  const origin = (methodName: string) => `${provider.name}.${methodName}`;
  const invoke = (target: InvocationTarget, args: readonly unknown[], ctx: Parameters<ItemHost['invoke']>[2]) => host.invoke(target, args, ctx);
  const tools = metadataStore.definitionsOf(provider, 'tool').map((d) => ({ item: buildTool(d, provider, host), at: origin(d.methodName) }));
  const resources = metadataStore.definitionsOf(provider, 'resource').map((d) => ({ built: buildResource(d, provider, host), at: origin(d.methodName) }));
  const prompts = metadataStore.definitionsOf(provider, 'prompt').map((d) => ({ item: buildPrompt(d, provider, host), at: origin(d.methodName) }));
  const skills = metadataStore.definitionsOf(provider, 'skill').map((d) => ({ item: buildSkill(d, provider, invoke), at: origin(d.methodName) }));
  const additions: Array<{ registry: Registry<unknown>; key: string; item: unknown; at: string }> = [
    ...tools.map(({ item, at }) => ({ registry: registries.tools as Registry<unknown>, key: item.name, item, at })),
    ...resources.map(({ built, at }) => ({
      registry: (built.kind === 'template' ? registries.templates : registries.resources) as Registry<unknown>,
      key: built.item.key,
      item: built.item as unknown,
      at,
    })),
    ...prompts.map(({ item, at }) => ({ registry: registries.prompts as Registry<unknown>, key: item.name, item, at })),
    ...skills.map(({ item, at }) => ({ registry: registries.skills.registry as Registry<unknown>, key: item.path, item, at })),
  ];
  // Check every name first, so a failing class leaves nothing of itself registered.
  const claimed = new Set<string>();
  for (const { registry, key, at } of additions) {
    const id = `${registry.kind}\u0000${key}`;
    if (registry.has(key) || claimed.has(id)) {
      throw new DefinitionError('DUPLICATE_NAME', `${at}: a ${registry.kind} named "${key}" is already registered; give one of them another name`);
    }
    claimed.add(id);
  }
  const completions = metadataStore.definitionsOf(provider, 'completion');
  const promptNames = new Set(prompts.map((p) => p.item.name));
  const templateKeys = new Set(resources.filter((r) => r.built.kind === 'template').map((r) => r.built.item.key));
  const completed = new Set<string>();
  for (const definition of completions) {
    checkCompletion(registries, definition, provider, promptNames, templateKeys);
    const key = completionKey(definition.options);
    if (completed.has(key)) {
      throw new DefinitionError('DUPLICATE_NAME', `${origin(definition.methodName)}: argument "${definition.options.argument}" already has a @Completion`);
    }
    completed.add(key);
  }
  const completers = completions.map((definition) => ({
    ...definition,
    provider,
    invocation: { kind: 'completion' as const, name: definition.options.argument, provider, methodName: definition.methodName },
  }));
  registries.access.register([...additions.map(({ item }) => (item as { target: InvocationTarget }).target), ...completers.map((c) => c.invocation)]);
  return {
    completions: completers.length,
    keys: [
      ...tools.map(({ item, at }) => ({ kind: 'tool' as const, key: item.name, at })),
      ...prompts.map(({ item, at }) => ({ kind: 'prompt' as const, key: item.name, at })),
      ...resources.map(({ built, at }) => ({ kind: built.kind, key: built.item.key, at })),
      ...skills.map(({ item, at }) => ({ kind: 'skill' as const, key: item.path, at })),
    ],
    commit() {
      for (const { registry, key, item, at } of additions) registry.add(key, item, at);
      for (const completer of completers) registries.completions.set(completionKey(completer.options), completer);
    },
  };
}

function checkCompletion(
  registries: ProviderRegistries,
  definition: CompletionDefinition,
  provider: Constructor,
  newPrompts: ReadonlySet<string>,
  newTemplates: ReadonlySet<string>,
): void {
  const { options } = definition;
  const where = `${provider.name}.${definition.methodName}`;
  const target =
    'prompt' in options
      ? registries.prompts.has(options.prompt) || newPrompts.has(options.prompt)
      : registries.templates.has(options.resource) || newTemplates.has(options.resource);
  if (!target) {
    const what = 'prompt' in options ? `prompt "${options.prompt}"` : `resource template "${options.resource}"`;
    throw new DefinitionError('INVALID_OPTION', `${where}: @Completion refers to ${what}, which is not registered (register its provider first)`);
  }
  if (registries.completions.has(completionKey(options))) {
    throw new DefinitionError('DUPLICATE_NAME', `${where}: argument "${options.argument}" already has a @Completion`);
  }
}
