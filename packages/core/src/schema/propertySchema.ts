import { ValidationTypes } from 'class-validator';
import { DefinitionError } from '../errors';
import type { Constructor } from '../metadata';
import { applyConstraint } from './constraints';
import type { PropertyInfo } from './readProperties';
import { forbid, SchemaDraft } from './SchemaDraft';
import type { JsonType } from './SchemaDraft';
import type { JsonSchema } from './types';

export interface PropertySchema {
  readonly schema: JsonSchema;
  readonly required: boolean;
  /** Some constraint on this property is beyond the schema. */
  readonly needsClassValidator: boolean;
}

/** Resolves a nested DTO class to the schema that stands for it (inline or `$ref`). */
export type NestedResolver = (dto: Constructor) => JsonSchema;

/** Types JSON cannot carry; a property of one of them is a declaration mistake. */
const UNSUPPORTED: ReadonlyMap<unknown, string> = new Map<unknown, string>([
  [Function, 'Function'],
  [Symbol, 'Symbol'],
  [BigInt, 'BigInt'],
  [Promise, 'Promise'],
  [Map, 'Map'],
  [WeakMap, 'WeakMap'],
  [WeakSet, 'WeakSet'],
]);

const PRIMITIVES: ReadonlyMap<unknown, JsonType> = new Map<unknown, JsonType>([
  [String, 'string'],
  [Number, 'number'],
  [Boolean, 'boolean'],
  [Array, 'array'],
  [Set, 'array'],
]);

/**
 * The schema of one DTO property. Type decorators decide the type; without one, the
 * compiler's `design:type` (or `@Type()`) does; a property of an unknown type (`Object`:
 * unions, interfaces, `any`) accepts any JSON value.
 */
export function propertySchema(dto: Constructor, prop: PropertyInfo, nested: NestedResolver): PropertySchema {
  const where = `${dto.name}.${prop.name}`;
  const value = new SchemaDraft(where);
  const items = new SchemaDraft(`${where}[]`);
  let optional = false;
  let conditional = false;
  let defined = false;
  let validateNested = false;
  let each = false;
  let needsClassValidator = false;

  for (const m of prop.metadatas) {
    // A per-decorator `validateIf` makes the constraint conditional: only class-validator knows when.
    if (m.validateIf) {
      needsClassValidator = true;
      continue;
    }
    const draft = m.each ? items : value;
    each ||= m.each === true;
    switch (m.type) {
      case ValidationTypes.CONDITIONAL_VALIDATION:
        if (m.name === 'isOptional') optional = true;
        else conditional = needsClassValidator = true; // @ValidateIf
        break;
      case ValidationTypes.IS_DEFINED:
        defined = true;
        break;
      case ValidationTypes.NESTED_VALIDATION:
        validateNested = true;
        break;
      case ValidationTypes.WHITELIST:
        break;
      case ValidationTypes.CUSTOM_VALIDATION:
        if (!applyConstraint(draft, m.name, m.constraints)) needsClassValidator = true;
        break;
      default:
        needsClassValidator = true; // @ValidatePromise and anything newer than this code
    }
  }

  const discriminated = prop.typeMetadata?.options?.discriminator !== undefined;
  // Polymorphic @Type(): the subtype is picked at run time, so the schema says "object" and class-validator checks it.
  if (discriminated) needsClassValidator = true;
  const declared = discriminated ? undefined : prop.typeMetadata?.typeFunction();
  // Only when no decorator says what the JSON value is; with one (say @IsObject() plus a
  // @Transform() that builds the Map) the author has taken charge of the conversion.
  const unsupported = UNSUPPORTED.get(declared ?? prop.designType);
  if (unsupported && value.type === undefined && !each) {
    throw new DefinitionError(
      'UNSUPPORTED_PROPERTY_TYPE',
      `${where} is a ${unsupported}, which JSON cannot carry. Declare it as a primitive, a DTO class, ` +
        'an array of those, or Record<string, unknown> with @IsObject().',
    );
  }

  const elementOfArray =
    each || value.type === 'array' || (value.type === undefined && PRIMITIVES.get(prop.designType) === 'array');
  if (each || (validateNested && elementOfArray)) value.requireType('array');

  let schema: JsonSchema;
  if (elementOfArray) {
    const element = declared ?? (discriminated ? Object : undefined);
    const itemSchema = valueSchema(items, element, validateNested, `${where}[]`, nested, discriminated);
    schema = value.toSchema();
    schema.type ??= 'array';
    if (Object.keys(itemSchema).length) schema.items = itemSchema;
  } else {
    const declaredOrDesign = discriminated ? Object : (declared ?? prop.designType);
    schema = valueSchema(value, declaredOrDesign, validateNested, where, nested, discriminated);
  }

  // @IsDefined rejects null, which an untyped schema would let through.
  if (defined && schema.type === undefined && schema.$ref === undefined) schema = forbid(schema, { type: 'null' });
  if (prop.description !== undefined) schema = withDescription(schema, prop.description);
  if (prop.mcpHeader !== undefined) schema = { ...schema, 'x-mcp-header': prop.mcpHeader };
  // JSON Schema's own word for a value never read back: whoever reads the listing knows, even of a remote tool.
  if (prop.sensitive) schema = { ...schema, writeOnly: true };
  return {
    schema,
    required: defined || (!optional && !conditional),
    needsClassValidator,
  };
}

/** The schema of a single (non-array) value, from its draft and its declared class. */
function valueSchema(
  draft: SchemaDraft,
  declared: unknown,
  validateNested: boolean,
  where: string,
  nested: NestedResolver,
  discriminated: boolean,
): JsonSchema {
  const primitive = PRIMITIVES.get(declared);
  if (!draft.type) {
    if (declared === Date) {
      draft.requireType('string');
      draft.add('format', 'date-time');
    } else if (primitive) draft.requireType(primitive);
    else if (draft.typeHint) draft.requireType(draft.typeHint);
  }
  const dtoClass = isDtoClass(declared) && (draft.type === undefined || draft.type === 'object') ? declared : undefined;
  if (dtoClass) {
    draft.requireType('object');
    const own = draft.toSchema();
    delete own.type; // the nested schema says it
    return { ...nested(dtoClass), ...own };
  }
  if (discriminated) draft.requireType('object');
  if (validateNested && draft.type !== 'object' && !discriminated) {
    throw new DefinitionError(
      'UNSUPPORTED_PROPERTY_TYPE',
      `${where} has @ValidateNested() but its class is unknown. Declare it with a DTO class type, ` +
        'and for arrays add @Type(() => ItemClass) from class-transformer.',
    );
  }
  return draft.toSchema();
}

/** A class whose instances are DTOs rather than built-in values. */
function isDtoClass(value: unknown): value is Constructor {
  if (typeof value !== 'function' || value === Object || value === Date) return false;
  return !PRIMITIVES.has(value) && !UNSUPPORTED.has(value);
}

/** Puts `description` right after `type` (or `$ref`) so listings read naturally. */
function withDescription(schema: JsonSchema, description: string): JsonSchema {
  const lead = schema.type !== undefined ? 'type' : schema.$ref !== undefined ? '$ref' : undefined;
  if (lead === undefined) return { description, ...schema };
  const { [lead]: head, ...rest } = schema;
  return { [lead]: head, description, ...rest };
}
