import type { Constructor, PropertyDescription, ToolDefinition } from './definitions';

/**
 * What the decorators collected. Servers build from it (collect first, build later); tests
 * call `clear()` between cases.
 */
export class MetadataStore {
  private tools: ToolDefinition[] = [];
  private descriptions = new Map<Constructor, Map<string, string>>();

  addTool(definition: ToolDefinition): void {
    this.tools.push(definition);
  }

  addDescription(entry: PropertyDescription): void {
    let byProperty = this.descriptions.get(entry.target);
    if (!byProperty) this.descriptions.set(entry.target, (byProperty = new Map()));
    byProperty.set(entry.propertyName, entry.description);
  }

  /** Tool definitions declared on `provider` or on the classes it extends. */
  toolsOf(provider: Constructor): ToolDefinition[] {
    return this.tools.filter((d) => d.target === provider || provider.prototype instanceof d.target);
  }

  /** The description of a DTO property, looking up the class chain. */
  descriptionOf(dto: Constructor, propertyName: string): string | undefined {
    for (let c: any = dto; c && c !== Object && c !== Function.prototype; c = Object.getPrototypeOf(c)) {
      const found = this.descriptions.get(c)?.get(propertyName);
      if (found !== undefined) return found;
    }
    return undefined;
  }

  /** Properties of `dto` itself (not its parents) that carry a description, in declaration order. */
  describedPropertiesOf(dto: Constructor): string[] {
    return [...(this.descriptions.get(dto)?.keys() ?? [])];
  }

  /**
   * Forgets the provider definitions (tools) collected so far, for tests that declare their
   * providers per test. DTO descriptions stay: they belong to classes loaded once per module.
   */
  clear(): void {
    this.tools = [];
  }
}

export const metadataStore = new MetadataStore();
