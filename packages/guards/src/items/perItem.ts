import type { PluginHost, ServedItem } from '@typemcp/core';
import { declaredFor } from './declared';

/** The methods whose requests name one item (a tool, a prompt, a resource), which per-item guards apply to. */
export const ITEM_METHODS: ReadonlySet<string> = new Set(['tools/call', 'prompts/get', 'resources/read']);

/**
 * Settings given per item in a plugin's options: tools by name, prompts by name, resources by
 * uri or by the template they are read through.
 */
export interface PerItem<T> {
  readonly tools?: Readonly<Record<string, T>>;
  readonly prompts?: Readonly<Record<string, T>>;
  readonly resources?: Readonly<Record<string, T>>;
}

/** The item a request names and the settings one guard has for it (its options first, then its decorator), if any. */
export interface ItemSettings<T> {
  readonly item: ServedItem;
  readonly settings: T | undefined;
}

/**
 * Finds the item a request names (undefined for a method that names none, or a name nothing
 * serves) and the settings `key`'s guard has for it: the plugin's options by name, else what the
 * guard's decorator declared on the method behind it.
 */
export function itemSettings<T>(
  host: Pick<PluginHost, 'itemOf'>,
  key: string,
  options: PerItem<T> | undefined,
  method: string,
  params: Readonly<Record<string, unknown>>,
): ItemSettings<T> | undefined {
  if (!ITEM_METHODS.has(method)) return undefined;
  const item = host.itemOf(method, params);
  if (item === undefined) return undefined;
  const byName = item.kind === 'tool' ? options?.tools : item.kind === 'prompt' ? options?.prompts : options?.resources;
  const named = byName === undefined ? undefined : (own(byName, item.name) ?? (item.kind === 'resource' ? own(byName, item.target.name) : undefined));
  return { item, settings: named ?? declaredFor<T>(item.target, key) };
}

function own<T>(record: Readonly<Record<string, T>>, name: string): T | undefined {
  return Object.prototype.hasOwnProperty.call(record, name) ? record[name] : undefined;
}
