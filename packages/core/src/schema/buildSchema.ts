import type { Constructor } from '../metadata';
import { propertySchema } from './propertySchema';
import { readProperties } from './readProperties';
import type { DtoDescription, JsonSchema } from './types';

// DTO classes are fixed once declared, so each is described once.
const cache = new WeakMap<Constructor, DtoDescription>();

/** The JSON Schema of a DTO class, and whether class-validator must run after it. Cached per class. */
export function describeDto(dto: Constructor): DtoDescription {
  let description = cache.get(dto);
  if (!description) {
    description = deepFreeze(new SchemaBuilder(dto).build());
    cache.set(dto, description);
  }
  return description;
}

/** The JSON Schema (2020-12) of a DTO class: an object schema without `$schema`. Cached per class. */
export function schemaForDto(dto: Constructor): JsonSchema {
  return describeDto(dto).schema;
}

/**
 * Walks one DTO and the DTOs nested in it. Nested classes are inlined; a class that refers
 * back to itself (directly or through others) goes to `$defs` once and is referenced, and a
 * reference back to the root is `{ $ref: '#' }`.
 */
class SchemaBuilder {
  private readonly inProgress: Constructor[] = [];
  private readonly recursive = new Set<Constructor>();
  private readonly resolved = new Map<Constructor, JsonSchema>();
  private readonly defNames = new Map<Constructor, string>();
  private readonly defs: Record<string, JsonSchema> = {};
  private needsClassValidator = false;

  constructor(private readonly root: Constructor) {}

  build(): DtoDescription {
    const schema = this.objectSchema(this.root);
    if (Object.keys(this.defs).length) schema.$defs = this.defs;
    return { schema, needsClassValidator: this.needsClassValidator };
  }

  private reference(dto: Constructor): JsonSchema {
    if (dto === this.root) return { $ref: '#' };
    if (this.inProgress.includes(dto)) {
      this.recursive.add(dto);
      return { $ref: this.defRef(dto) };
    }
    let schema = this.resolved.get(dto);
    if (!schema) {
      schema = this.objectSchema(dto);
      if (this.recursive.has(dto)) {
        this.defs[this.defName(dto)] = schema;
        schema = { $ref: this.defRef(dto) };
      }
      this.resolved.set(dto, schema);
    }
    return schema;
  }

  private objectSchema(dto: Constructor): JsonSchema {
    this.inProgress.push(dto);
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const prop of readProperties(dto)) {
      const result = propertySchema(dto, prop, (nested) => this.reference(nested));
      properties[prop.name] = result.schema;
      if (result.required) required.push(prop.name);
      if (result.needsClassValidator) this.needsClassValidator = true;
    }
    this.inProgress.pop();
    return required.length
      ? { type: 'object', properties, required, additionalProperties: false }
      : { type: 'object', properties, additionalProperties: false };
  }

  private defRef(dto: Constructor): string {
    return `#/$defs/${this.defName(dto)}`;
  }

  /** The class name, numbered when two different classes share it. */
  private defName(dto: Constructor): string {
    let name = this.defNames.get(dto);
    if (!name) {
      const base = dto.name || 'Anonymous';
      const taken = new Set(this.defNames.values());
      name = base;
      for (let i = 2; taken.has(name); i++) name = `${base}${i}`;
      this.defNames.set(dto, name);
    }
    return name;
  }
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
