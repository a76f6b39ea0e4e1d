import { DefinitionError } from '../errors';
import type { JsonSchema } from './types';

export type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array';

type Bound =
  | 'minimum'
  | 'maximum'
  | 'exclusiveMinimum'
  | 'exclusiveMaximum'
  | 'minLength'
  | 'maxLength'
  | 'minItems'
  | 'maxItems';

const LOWER_BOUNDS: ReadonlySet<Bound> = new Set(['minimum', 'exclusiveMinimum', 'minLength', 'minItems']);

/**
 * The schema of one value (a property, or the elements of an array property) while its
 * decorators are being read. Decorators combine by conjunction: repeated bounds keep the
 * tightest, other repeated keywords go to `allOf`.
 */
export class SchemaDraft {
  type: JsonType | undefined;
  /** A type implied by a validator the schema cannot express; used when nothing else decides. */
  typeHint: JsonType | undefined;
  /** `@IsNotEmpty()`: resolved once the type is known. */
  notEmpty = false;
  private readonly keywords: JsonSchema = {};
  private readonly allOf: JsonSchema[] = [];

  constructor(private readonly where: string) {}

  /** Requires the value to be of `type`; `number` and `integer` narrow to `integer`. */
  requireType(type: JsonType): void {
    if (this.type === undefined || this.type === type) this.type = type;
    else if (isNumeric(this.type) && isNumeric(type)) this.type = 'integer';
    else {
      throw new DefinitionError(
        'UNSUPPORTED_PROPERTY_TYPE',
        `${this.where} has validators for both ${this.type} and ${type} values; keep the decorators of one type.`,
      );
    }
  }

  bound(keyword: Bound, value: unknown): boolean {
    if (typeof value !== 'number' || !Number.isFinite(value)) return false;
    const current = this.keywords[keyword] as number | undefined;
    const tightest = LOWER_BOUNDS.has(keyword) ? Math.max : Math.min;
    this.keywords[keyword] = current === undefined ? value : tightest(current, value);
    return true;
  }

  add(keyword: string, value: unknown): void {
    if (!(keyword in this.keywords)) this.keywords[keyword] = value;
    else this.allOf.push({ [keyword]: value });
  }

  /** `enum`: a second list intersects the first. */
  enumOf(values: readonly unknown[]): void {
    const unique = [...new Set(values)];
    const current = this.keywords.enum as unknown[] | undefined;
    const allowed = current ? current.filter((v) => unique.includes(v)) : unique;
    if (allowed.length === 0) {
      throw new DefinitionError(
        'UNSUPPORTED_PROPERTY_TYPE',
        `${this.where} has value lists (@IsIn/@IsEnum) that no value satisfies together; keep one list.`,
      );
    }
    this.keywords.enum = allowed;
    const type = typeOfAll(allowed);
    if (type) this.requireType(type);
  }

  toSchema(): JsonSchema {
    const type = this.type;
    const schema: JsonSchema = type ? { type, ...this.keywords } : { ...this.keywords };
    if (this.notEmpty) {
      // class-validator's isNotEmpty rejects '', null and undefined; JSON types already exclude null.
      if (type === 'string') schema.minLength = Math.max(1, (schema.minLength as number | undefined) ?? 0);
      else if (!type) return forbid(schema, { enum: [null, ''] }, this.allOf);
    }
    if (this.allOf.length) schema.allOf = [...this.allOf];
    return schema;
  }
}

/** Adds a `not` to a schema, next to any `not` it already has. */
export function forbid(schema: JsonSchema, not: JsonSchema, allOf: readonly JsonSchema[] = []): JsonSchema {
  const extra = [...((schema.allOf as JsonSchema[] | undefined) ?? []), ...allOf];
  if (schema.not === undefined) return extra.length ? { ...schema, not, allOf: extra } : { ...schema, not };
  return { ...schema, allOf: [...extra, { not }] };
}

function isNumeric(type: JsonType): boolean {
  return type === 'number' || type === 'integer';
}

/** The JSON type shared by every value, if there is one. */
function typeOfAll(values: readonly unknown[]): JsonType | undefined {
  if (values.length === 0) return undefined;
  if (values.every((v) => typeof v === 'string')) return 'string';
  if (values.every((v) => typeof v === 'boolean')) return 'boolean';
  if (values.every((v) => typeof v === 'number' && Number.isInteger(v))) return 'integer';
  if (values.every((v) => typeof v === 'number' && Number.isFinite(v))) return 'number';
  return undefined;
}
