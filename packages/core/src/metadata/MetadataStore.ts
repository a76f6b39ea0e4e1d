import { METADATA_STORE_KEY } from '../constants';
import type {
  AccessDeclaration,
  MiddlewareDeclaration,
  CompletionDefinition,
  Constructor,
  PromptDefinition,
  PropertyDescription,
  PropertyEnumTitles,
  PropertyTitle,
  ResourceDefinition,
  SkillDefinition,
  ToolDefinition,
} from './definitions';

const CLASS_LEVEL = Symbol('class');

type ProviderDefinition = ToolDefinition | ResourceDefinition | PromptDefinition | CompletionDefinition | SkillDefinition;
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
  private mcpHeaders = new Map<Constructor, Map<string, string>>();
  private sensitive = new Map<Constructor, Map<string, true>>();
  /** `@UseMiddleware` per class: on the class itself (key CLASS_LEVEL) and per method. */
  private middlewares = new Map<Constructor, Map<string | typeof CLASS_LEVEL, unknown[]>>();
  /** `@Public`, `@Scopes`, `@Roles`, `@Guard` per class, like middlewares. */
  private access = new Map<Constructor, Map<string | typeof CLASS_LEVEL, AccessDeclaration[]>>();

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

  addMcpHeader(entry: { target: Constructor; propertyName: string; header: string }): void {
    propertyMap(this.mcpHeaders, entry.target).set(entry.propertyName, entry.header);
  }

  addSensitive(entry: { target: Constructor; propertyName: string }): void {
    propertyMap(this.sensitive, entry.target).set(entry.propertyName, true);
  }

  addEnumTitles(entry: PropertyEnumTitles): void {
    propertyMap(this.enumTitles, entry.target).set(entry.propertyName, entry.titles);
  }

  addMiddleware(entry: MiddlewareDeclaration): void {
    let byMember = this.middlewares.get(entry.target);
    if (!byMember) this.middlewares.set(entry.target, (byMember = new Map()));
    const key = entry.methodName ?? CLASS_LEVEL;
    // Decorators apply bottom-up; prepending keeps the order in which they are written.
    byMember.set(key, [...entry.middlewares, ...(byMember.get(key) ?? [])]);
  }

  /**
   * The `@UseMiddleware` chain around `provider.methodName`, outermost first: classes from the
   * base down (each class's own before its methods'), then the method's.
   */
  middlewaresOf<M>(provider: Constructor, methodName: string): M[] {
    const chain: Constructor[] = [];
    for (let c: any = provider; c && c !== Object && c !== Function.prototype; c = Object.getPrototypeOf(c)) chain.unshift(c);
    const classLevel = chain.flatMap((c) => this.middlewares.get(c)?.get(CLASS_LEVEL) ?? []);
    const methodLevel = chain.flatMap((c) => this.middlewares.get(c)?.get(methodName) ?? []);
    return [...classLevel, ...methodLevel] as M[];
  }

  addAccess(entry: AccessDeclaration): void {
    let byMember = this.access.get(entry.target);
    if (!byMember) this.access.set(entry.target, (byMember = new Map()));
    const key = entry.methodName ?? CLASS_LEVEL;
    byMember.set(key, [entry, ...(byMember.get(key) ?? [])]);
  }

  /** True once any class declared an access rule: until then access checks are skipped. */
  get declaresAccess(): boolean {
    return this.access.size > 0;
  }

  /**
   * The access rules of `provider.methodName`: the class-level rules of the nearest class in its
   * chain that declares any, and the method's rules as declared by the nearest class that
   * declares any for it. A subclass's own rules replace what it inherits.
   */
  accessOf(provider: Constructor, methodName: string): { classLevel: AccessDeclaration[]; methodLevel: AccessDeclaration[] } {
    let classLevel: AccessDeclaration[] | undefined;
    let methodLevel: AccessDeclaration[] | undefined;
    for (let c: any = provider; c && c !== Object && c !== Function.prototype; c = Object.getPrototypeOf(c)) {
      classLevel ??= this.access.get(c)?.get(CLASS_LEVEL);
      methodLevel ??= this.access.get(c)?.get(methodName);
    }
    return { classLevel: classLevel ?? [], methodLevel: methodLevel ?? [] };
  }

  /** Every class that declared a tool, resource, prompt, completion or skill, in declaration order. */
  providers(): Constructor[] {
    return [...new Set(this.definitions.map((d) => d.target))];
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

  /** The `@McpHeader` name of a DTO property, looking up the class chain. */
  mcpHeaderOf(dto: Constructor, propertyName: string): string | undefined {
    return lookUpChain(this.mcpHeaders, dto, propertyName);
  }

  /** True when a DTO property is `@Sensitive`, looking up the class chain. */
  isSensitive(dto: Constructor, propertyName: string): boolean {
    return lookUpChain(this.sensitive, dto, propertyName) === true;
  }

  /** The value titles of an enum DTO property, looking up the class chain. */
  enumTitlesOf(dto: Constructor, propertyName: string): Readonly<Record<string, string>> | undefined {
    return lookUpChain(this.enumTitles, dto, propertyName);
  }

  /** Classes with a described property (`@Description`). */
  describedClasses(): Constructor[] {
    return [...this.descriptions.keys()];
  }

  /** Properties of `dto` itself (not its parents) that carry a description, in declaration order. */
  describedPropertiesOf(dto: Constructor): string[] {
    return [...(this.descriptions.get(dto)?.keys() ?? [])];
  }

  /**
   * Forgets the provider definitions (tools, resources, prompts, completions, middleware, access rules) collected so far, for tests that declare their
   * providers per test. DTO descriptions and titles stay: they belong to classes loaded once per module.
   */
  clear(): void {
    this.definitions = [];
    this.middlewares = new Map();
    this.access = new Map();
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
