import 'reflect-metadata';
import { getMetadataStorage } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';
import type { MetadataStorage as TransformerStorage } from 'class-transformer/types/MetadataStorage';
import type { TypeMetadata } from 'class-transformer/types/interfaces';
import { DESIGN_TYPE } from '../constants';
import { metadataStore } from '../metadata';
import type { Constructor } from '../metadata';

// class-transformer keeps its @Type() registry out of its public entry point.
const { defaultMetadataStorage } = require('class-transformer/cjs/storage') as {
  defaultMetadataStorage: TransformerStorage;
};

/** Everything known about one DTO property. */
export interface PropertyInfo {
  readonly name: string;
  /** class-validator metadata, as class-validator itself resolves it (own overrides inherited). */
  readonly metadatas: readonly ValidationMetadata[];
  /** `design:type` emitted by the compiler; undefined when the compiler emitted none. */
  readonly designType: unknown;
  /** class-transformer `@Type()` metadata. */
  readonly typeMetadata: TypeMetadata | undefined;
  readonly description: string | undefined;
  /** `@McpHeader`: the `x-mcp-header` name the argument is mirrored under. */
  readonly mcpHeader: string | undefined;
  /** `@Sensitive`: the schema says `writeOnly`. */
  readonly sensitive: boolean;
}

/**
 * The properties of a DTO class and its ancestors, base class first, each class's in
 * declaration order. A property counts when class-validator or `@Description` knows it.
 */
export function readProperties(dto: Constructor): PropertyInfo[] {
  const all = getMetadataStorage().getTargetValidationMetadatas(dto, '', true, false);
  const names: string[] = [];
  for (const cls of classChain(dto)) {
    for (const name of declarationOrder(cls, all)) if (!names.includes(name)) names.push(name);
  }
  return names.map((name) => ({
    name,
    metadatas: sourceOrder(all.filter((m) => m.propertyName === name)),
    designType: Reflect.getMetadata(DESIGN_TYPE, dto.prototype, name),
    typeMetadata: defaultMetadataStorage.findTypeMetadata(dto, name),
    description: metadataStore.descriptionOf(dto, name),
    mcpHeader: metadataStore.mcpHeaderOf(dto, name),
    sensitive: metadataStore.isSensitive(dto, name),
  }));
}

/**
 * Decorators run bottom-up, so class-validator lists a property's constraints last-written
 * first; reading them as written keeps messages and `allOf` order as the author wrote them.
 */
function sourceOrder(metadatas: ValidationMetadata[]): ValidationMetadata[] {
  const byTarget = new Map<unknown, ValidationMetadata[]>();
  for (const m of metadatas) {
    const group = byTarget.get(m.target);
    if (group) group.unshift(m);
    else byTarget.set(m.target, [m]);
  }
  // Inherited constraints first, like the properties themselves.
  return [...byTarget.values()].reverse().flat();
}

/** `dto` and its ancestors, the most basic first. */
function classChain(dto: Constructor): Constructor[] {
  const chain: Constructor[] = [];
  for (let c: unknown = dto; typeof c === 'function' && c !== Function.prototype; c = Object.getPrototypeOf(c)) {
    chain.unshift(c as Constructor);
  }
  return chain;
}

/**
 * Property names declared on `cls` itself. Decorators run property by property, so both the
 * class-validator list and the description list are in declaration order; a property only
 * one of them knows is placed after its predecessor in the list that knows it.
 */
function declarationOrder(cls: Constructor, all: readonly ValidationMetadata[]): string[] {
  const order: string[] = [];
  for (const m of all) if (m.target === cls && !order.includes(m.propertyName)) order.push(m.propertyName);
  let anchor = -1;
  for (const name of describedProperties(cls)) {
    const at = order.indexOf(name);
    if (at >= 0) anchor = at;
    else order.splice(++anchor, 0, name);
  }
  return order;
}

/** Names of the properties `@Description` was put on in `cls` itself. */
function describedProperties(cls: Constructor): string[] {
  return metadataStore.describedPropertiesOf(cls);
}
