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

const PRIMITIVES = new Set(['string', 'number', 'integer', 'boolean']);
const CONVERTED_TYPES = new Set<unknown>([Date, Map, Set]);

/**
 * True when class-transformer would only copy the checked values onto a new instance: every
 * property is a primitive (or a list of primitives) in the schema, no property is typed as
 * something class-transformer converts (Date, Map, Set), and no class-transformer decorator
 * (@Type, @Transform, @Expose, @Exclude) is involved. Such a DTO is converted with
 * `Object.assign(new Dto(), args)`, which gives the same instance at a fraction of the cost;
 * the schema has already refused unknown keys, so nothing else can be copied.
 */
export function isFlatDto(dto: Constructor, schema: JsonSchema): boolean {
  if (schema.additionalProperties !== false || schema.$defs !== undefined) return false;
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  if (defaultMetadataStorage.getExposedMetadatas(dto).length > 0 || defaultMetadataStorage.getExcludedMetadatas(dto).length > 0) {
    return false;
  }
  return Object.entries(properties).every(([name, property]) => {
    if (!isPrimitiveSchema(property)) return false;
    if (CONVERTED_TYPES.has(Reflect.getMetadata(DESIGN_TYPE, dto.prototype, name))) return false;
    return (
      !defaultMetadataStorage.findTypeMetadata(dto, name) &&
      defaultMetadataStorage.findTransformMetadatas(dto, name, TransformationType.PLAIN_TO_CLASS).length === 0
    );
  });
}

function isPrimitiveSchema(schema: JsonSchema): boolean {
  if (schema.$ref !== undefined || schema.properties !== undefined || schema.anyOf !== undefined || schema.oneOf !== undefined) return false;
  if (schema.type === 'array') return isPrimitiveSchema((schema.items ?? {}) as JsonSchema) && (schema.items as JsonSchema | undefined)?.type !== undefined;
  if (typeof schema.type === 'string') return PRIMITIVES.has(schema.type);
  // enum / const without a type: primitives only.
  const values = (schema.enum as unknown[] | undefined) ?? (schema.const !== undefined ? [schema.const] : undefined);
  return values !== undefined && values.every((v) => v === null || typeof v !== 'object');
}
