import { METADATA_STORE_KEY } from '../constants';
import type {
  CompletionDefinition,
  Constructor,
  PromptDefinition,
  PropertyDescription,
  PropertyEnumTitles,
  PropertyTitle,
  ResourceDefinition,
  ToolDefinition,
} from './definitions';

type ProviderDefinition = ToolDefinition | ResourceDefinition | PromptDefinition | CompletionDefinition;
type Kind = ProviderDefinition['kind'];
type DefinitionOf<K extends Kind> = Extract<ProviderDefinition, { kind: K }>;

/**
 * What the decorators collected. Servers build from it (collect first, build later); tests
 * call `clear()` between cases.
 */
export class MetadataStore {
  private definitions: ProviderDefinition[] = [];
  private descriptions = new Map<Constructor, Map<string, string>>();
  private titles = new Map<Constructor, Map<string, string>>();
  private enumTitles = new Map<Constructor, Map<string, Readonly<Record<string, string>>>>();

  add(definition: ProviderDefinition): void {
    this.definitions.push(definition);
  }

  addDescription(entry: PropertyDescription): void {
    let byProperty = this.descriptions.get(entry.target);
    if (!byProperty) this.descriptions.set(entry.target, (byProperty = new Map()));
    byProperty.set(entry.propertyName, entry.description);
  }

  addTitle(entry: PropertyTitle): void {
    propertyMap(this.titles, entry.target).set(entry.propertyName, entry.title);
  }

  addEnumTitles(entry: PropertyEnumTitles): void {
    propertyMap(this.enumTitles, entry.target).set(entry.propertyName, entry.titles);
  }

  /** Definitions of one kind declared on `provider` or on the classes it extends. */
  definitionsOf<K extends Kind>(provider: Constructor, kind: K): DefinitionOf<K>[] {
    const found = this.definitions.filter(
      (d): d is DefinitionOf<K> => d.kind === kind && (d.target === provider || provider.prototype instanceof d.target),
    );
    // A subclass that decorates an overriding method replaces the parent's declaration.
    const overridden = (d: DefinitionOf<K>) =>
      found.some((other) => other !== d && other.methodName === d.methodName && other.target.prototype instanceof d.target);
    return found.filter((d) => !overridden(d));
  }

  /** The description of a DTO property, looking up the class chain. */
  descriptionOf(dto: Constructor, propertyName: string): string | undefined {
    for (let c: any = dto; c && c !== Object && c !== Function.prototype; c = Object.getPrototypeOf(c)) {
      const found = this.descriptions.get(c)?.get(propertyName);
      if (found !== undefined) return found;
    }
    return undefined;
  }

  /** The title of a DTO property, looking up the class chain. */
  titleOf(dto: Constructor, propertyName: string): string | undefined {
    return lookUpChain(this.titles, dto, propertyName);
  }

  /** The value titles of an enum DTO property, looking up the class chain. */
  enumTitlesOf(dto: Constructor, propertyName: string): Readonly<Record<string, string>> | undefined {
    return lookUpChain(this.enumTitles, dto, propertyName);
  }

  /** Properties of `dto` itself (not its parents) that carry a description, in declaration order. */
  describedPropertiesOf(dto: Constructor): string[] {
    return [...(this.descriptions.get(dto)?.keys() ?? [])];
  }

  /**
   * Forgets the provider definitions (tools, resources, prompts, completions) collected so far, for tests that declare their
   * providers per test. DTO descriptions and titles stay: they belong to classes loaded once per module.
   */
  clear(): void {
    this.definitions = [];
  }
}

/** The process-wide store, shared by every loaded copy of @typemcp/core. */
export const metadataStore: MetadataStore = ((globalThis as Record<symbol, MetadataStore | undefined>)[METADATA_STORE_KEY] ??= new MetadataStore());

function propertyMap<V>(maps: Map<Constructor, Map<string, V>>, target: Constructor): Map<string, V> {
  let byProperty = maps.get(target);
  if (!byProperty) maps.set(target, (byProperty = new Map()));
  return byProperty;
}

/** The entry of the nearest class in `dto`'s chain that declares one for the property. */
function lookUpChain<V>(maps: Map<Constructor, Map<string, V>>, dto: Constructor, propertyName: string): V | undefined {
  for (let c: any = dto; c && c !== Object && c !== Function.prototype; c = Object.getPrototypeOf(c)) {
    const found = maps.get(c)?.get(propertyName);
    if (found !== undefined) return found;
  }
  return undefined;
}
