import type { Constructor, PropertyDescription, ToolDefinition } from './definitions';

/**
 * What the decorators collected. Servers build from a snapshot (collect first, build later);
 * tests call `clear()` between cases.
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

  clear(): void {
    this.tools = [];
    this.descriptions.clear();
  }
}

export const metadataStore = new MetadataStore();
