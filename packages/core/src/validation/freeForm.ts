import 'reflect-metadata';
import type { MetadataStorage as TransformerStorage } from 'class-transformer/types/MetadataStorage';
import { DESIGN_TYPE } from '../constants';
import type { Constructor } from '../metadata';
import type { JsonSchema } from '../schema';

// class-transformer keeps its decorator registry out of its public entry point. Its entry
// point itself is loaded on the first conversion (DtoValidator), not at start-up.
const { TransformationType } = require('class-transformer/cjs/enums') as Pick<typeof import('class-transformer'), 'TransformationType'>;
const { defaultMetadataStorage } = require('class-transformer/cjs/storage') as {
  defaultMetadataStorage: TransformerStorage;
};

type Path = readonly (string | number)[];

/** Free-form values taken out of the arguments, and how to put them back into the instance. */
export interface Lifted {
  readonly plain: object;
  restore(instance: object): void;
}

/**
 * class-transformer rebuilds every object it walks, which harms free-form values (`{}`,
 * `Record<string, unknown>`, untyped arrays): keys that exist on Object.prototype are dropped
 * or, for "constructor", make it throw, and deep nesting exhausts the stack. DTO properties
 * are known names, so only free-form values are at risk: they are lifted out before the
 * conversion and put back, exactly as sent, after it. Properties with their own `@Type()` or
 * `@Transform()` stay with class-transformer.
 *
 * Returns undefined when the schema has no free-form value, so the common case costs nothing.
 */
export function freeFormLifter(dto: Constructor, schema: JsonSchema): ((plain: object) => Lifted) | undefined {
  if (!hasFreeForm(schema, schema, new Set())) return undefined;
  return (plain) => {
    const lifted: [Path, unknown][] = [];
    const copy = liftObject(plain as Record<string, unknown>, schema, dto, schema, [], lifted);
    return {
      plain: copy,
      restore(instance) {
        for (const [path, value] of lifted) put(instance, path, value);
      },
    };
  };
}

function liftObject(
  value: Record<string, unknown>,
  schema: JsonSchema,
  cls: unknown,
  root: JsonSchema,
  path: Path,
  lifted: [Path, unknown][],
): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const copy = { ...value };
  for (const [key, child] of Object.entries(value)) {
    if (child === null || typeof child !== 'object') continue;
    const childSchema = resolve(properties[key], root);
    if (!childSchema || hasTransform(cls, key)) continue;
    if (isDto(childSchema)) {
      const nested = child as Record<string, unknown>;
      copy[key] = liftObject(nested, childSchema, classOf(cls, key), root, [...path, key], lifted);
      continue;
    }
    const items = childSchema.type === 'array' ? resolve(childSchema.items as JsonSchema | undefined, root) : undefined;
    if (items && isDto(items) && Array.isArray(child)) {
      const element = classOf(cls, key);
      copy[key] = child.map((entry, i) =>
        entry !== null && typeof entry === 'object'
          ? liftObject(entry as Record<string, unknown>, items, element, root, [...path, key, i], lifted)
          : entry,
      );
      continue;
    }
    // A @Type() here is a polymorphic one (a DTO would have a DTO schema): class-transformer picks the class.
    if (mayHoldObjects(childSchema, root) && !hasType(cls, key)) {
      lifted.push([[...path, key], child]);
      delete copy[key];
    }
  }
  return copy;
}

/** Whether any DTO reachable from `schema` has a property that can hold free-form objects. */
function hasFreeForm(schema: JsonSchema, root: JsonSchema, seen: Set<JsonSchema>): boolean {
  if (seen.has(schema)) return false;
  seen.add(schema);
  for (const property of Object.values((schema.properties ?? {}) as Record<string, JsonSchema>)) {
    const resolved = resolve(property, root);
    if (!resolved) continue;
    if (isDto(resolved)) {
      if (hasFreeForm(resolved, root, seen)) return true;
      continue;
    }
    const items = resolved.type === 'array' ? resolve(resolved.items as JsonSchema | undefined, root) : undefined;
    if (items && isDto(items)) {
      if (hasFreeForm(items, root, seen)) return true;
    } else if (mayHoldObjects(resolved, root)) return true;
  }
  return false;
}

/** A schema that is not a DTO and admits objects or arrays. */
function mayHoldObjects(schema: JsonSchema, root: JsonSchema): boolean {
  if (isDto(schema) || 'enum' in schema || 'const' in schema) return false;
  switch (schema.type) {
    case undefined:
    case 'object':
      return true;
    case 'array': {
      const items = resolve(schema.items as JsonSchema | undefined, root);
      return !items || isDto(items) || mayHoldObjects(items, root);
    }
    default:
      return false;
  }
}

function isDto(schema: JsonSchema): boolean {
  return schema.properties !== undefined;
}

/** Follows the only references the schema builder writes: `#` and `#/$defs/Name`. */
function resolve(schema: JsonSchema | undefined, root: JsonSchema): JsonSchema | undefined {
  const ref = schema?.$ref;
  if (typeof ref !== 'string') return schema;
  if (ref === '#') return root;
  return (root.$defs as Record<string, JsonSchema> | undefined)?.[ref.slice('#/$defs/'.length)];
}

/** The class class-transformer will build for `cls[key]` (or for its elements). */
function classOf(cls: unknown, key: string): unknown {
  if (typeof cls !== 'function') return undefined;
  const type = defaultMetadataStorage.findTypeMetadata(cls, key);
  return type ? type.typeFunction() : Reflect.getMetadata(DESIGN_TYPE, cls.prototype as object, key);
}

function hasType(cls: unknown, key: string): boolean {
  return typeof cls === 'function' && defaultMetadataStorage.findTypeMetadata(cls, key) !== undefined;
}

function hasTransform(cls: unknown, key: string): boolean {
  return (
    typeof cls === 'function' &&
    defaultMetadataStorage.findTransformMetadatas(cls, key, TransformationType.PLAIN_TO_CLASS).length > 0
  );
}

function put(instance: object, path: Path, value: unknown): void {
  let target = instance as Record<string | number, unknown>;
  for (const segment of path.slice(0, -1)) {
    const next = target[segment];
    if (next === null || typeof next !== 'object') return;
    target = next as Record<string | number, unknown>;
  }
  target[path[path.length - 1]] = value;
}
