import { isPlainObject, revisionOf } from '../protocol';
import type { Revision } from '../protocol';
import { DefinitionError, InvalidClientResponseError } from '../errors';
import { metadataStore } from '../metadata';
import type { Constructor } from '../metadata';
import { schemaForDto } from '../schema';
import type { JsonSchema } from '../schema';
import { compileDtoValidator, compileSchema } from '../validation';
import type { ElicitationResult } from '../runtime/elicitationTypes';

/**
 * The two schema subsets elicitation has had. 2025-06-18 introduced elicitation with plain
 * string enums (titles only through the legacy `enumNames`) and `default` on booleans only;
 * 2025-11-25 added `default` everywhere, titled `oneOf` enums and multi-select arrays.
 * Later revisions keep the 2025-11-25 subset.
 */
type Subset = 'legacy' | 'current';

const FORMATS: ReadonlySet<string> = new Set(['email', 'uri', 'date', 'date-time']);

/** Keywords that say nothing about which values are valid, so a form loses nothing without them. */
const HARMLESS: ReadonlySet<string> = new Set(['additionalProperties', '$comment']);

/** What the DTO decorators behind a keyword are, for messages. */
const KEYWORD_SOURCES: Readonly<Record<string, string>> = {
  pattern: 'a pattern (@Matches)',
  multipleOf: 'a divisor (@IsDivisibleBy)',
  not: 'an excluded value (@NotEquals, @IsNotIn, or @IsNotEmpty/@IsDefined without a type)',
  const: 'a fixed value (@Equals)',
  allOf: 'repeated constraints of one kind (e.g. two @Matches or two formats)',
  exclusiveMinimum: 'an exclusive lower bound (@IsPositive) on a non-integer number',
  exclusiveMaximum: 'an exclusive upper bound (@IsNegative) on a non-integer number',
};


const cache = new WeakMap<Constructor, Map<Subset, JsonSchema>>();

/**
 * The `requestedSchema` of an `elicitation/create` request for a DTO class, in the schema
 * subset of the given protocol version: `{ type: 'object', properties, required? }` with
 * flat string, number, boolean and string-enum properties (plus multi-select arrays from
 * 2025-11-25 on). Titles come from `@Title`/`@EnumTitles`, defaults from the DTO's field
 * initializers. Throws a DefinitionError when the DTO needs more than elicitation can ask
 * for. Cached per class and subset; the result is frozen.
 */
export function elicitationSchemaFor(dto: Constructor, protocolVersion: string): Record<string, unknown> {
  return elicitationSchemaOf(dto, revisionOf(protocolVersion));
}

/** `elicitationSchemaFor`, for a request's revision. */
export function elicitationSchemaOf(dto: Constructor, revision: Revision): Record<string, unknown> {
  const subset: Subset = revision.elicitationModes ? 'current' : 'legacy';
  let bySubset = cache.get(dto);
  let schema = bySubset?.get(subset);
  if (!schema) {
    schema = deepFreeze(new ElicitationSchemaBuilder(dto, subset, revision.version).build());
    if (!bySubset) cache.set(dto, (bySubset = new Map()));
    bySubset.set(subset, schema);
  }
  return schema;
}

/**
 * Checks a client's answer to `elicitation/create` and, when the user accepted, validates
 * `content` against the DTO and converts it into a DTO instance. Absent `content` on
 * accept counts as an empty form (the result schema makes it optional), so it passes only
 * when the DTO requires nothing. Throws InvalidClientResponseError for anything else.
 */
export async function readElicitResult<T>(dto: Constructor<T>, raw: unknown): Promise<ElicitationResult<T>> {
  const action = elicitAction(raw);
  if (action !== 'accept') return { action };
  const content = (raw as { content?: unknown }).content;
  if (content !== undefined && !isPlainObject(content)) {
    throw InvalidClientResponseError.about('elicitation', 'an accepted answer needs an object "content"', content);
  }
  const outcome = await compileDtoValidator(dto).validate(content ?? {});
  if (!outcome.ok) {
    throw InvalidClientResponseError.about('elicitation', `the content does not match ${dto.name}: ${outcome.errors.join('; ')}`, content);
  }
  return { action: 'accept', content: outcome.value };
}

/** The action of an `elicitation/create` answer; throws InvalidClientResponseError for anything else. */
export function elicitAction(raw: unknown): ElicitationResult<unknown>['action'] {
  if (!isPlainObject(raw)) throw InvalidClientResponseError.about('elicitation', 'expected an object with "action"', raw);
  const { action } = raw;
  if (action === 'accept' || action === 'decline' || action === 'cancel') return action;
  throw InvalidClientResponseError.about('elicitation', '"action" must be accept, decline or cancel', raw);
}

/** One DTO property while it is being translated. */
interface Property {
  readonly name: string;
  /** Its schema as `schemaForDto` made it. */
  readonly schema: JsonSchema;
}

class ElicitationSchemaBuilder {
  private defaults: Map<string, unknown> | undefined;

  constructor(
    private readonly dto: Constructor,
    private readonly subset: Subset,
    private readonly version: string,
  ) {}

  build(): JsonSchema {
    const source = schemaForDto(this.dto);
    const properties: Record<string, JsonSchema> = {};
    for (const [name, schema] of Object.entries((source.properties ?? {}) as Record<string, JsonSchema>)) {
      properties[name] = this.property({ name, schema });
    }
    const required = source.required as string[] | undefined;
    return required?.length ? { type: 'object', properties, required: [...required] } : { type: 'object', properties };
  }

  private property(p: Property): JsonSchema {
    const { type } = p.schema;
    if (p.schema.$ref !== undefined || type === 'object' || p.schema.properties !== undefined) {
      this.unsupported(p, 'is a nested object');
    }
    if (typeof type !== 'string') {
      this.unsupported(
        p,
        type === undefined
          ? 'has no single JSON type (add @IsString(), @IsNumber(), @IsInt(), @IsBoolean(), or @IsIn/@IsEnum with strings)'
          : `may be any of ${JSON.stringify(type)}`,
      );
    }
    if (type !== 'string' && type !== 'array') this.noEnumTitles(p);
    switch (type) {
      case 'string':
        return p.schema.enum !== undefined ? this.singleSelect(p) : this.text(p);
      case 'number':
      case 'integer':
        if (p.schema.enum !== undefined) this.unsupported(p, 'is a numeric enum; elicitation enums hold strings');
        return this.number(p, type);
      case 'boolean':
        if (p.schema.enum !== undefined) this.unsupported(p, 'is a boolean limited to some values');
        this.onlyKeywords(p, ['type', 'description']);
        return this.finish(p, { type }, ['legacy', 'current']);
      case 'array':
        return this.multiSelect(p);
      default:
        return this.unsupported(p, `is of type "${type}"`);
    }
  }

  private text(p: Property): JsonSchema {
    this.noEnumTitles(p);
    this.onlyKeywords(p, ['type', 'description', 'minLength', 'maxLength', 'format']);
    const { format } = p.schema;
    if (format !== undefined && !FORMATS.has(format as string)) {
      this.unsupported(p, `has format "${String(format)}"; elicitation strings allow only email, uri, date and date-time`);
    }
    return this.finish(p, pick(p.schema, ['type', 'minLength', 'maxLength', 'format']), ['current']);
  }

  private number(p: Property, type: 'number' | 'integer'): JsonSchema {
    const exclusive = type === 'integer' ? ['exclusiveMinimum', 'exclusiveMaximum'] : [];
    this.onlyKeywords(p, ['type', 'description', 'minimum', 'maximum', ...exclusive]);
    const out = pick(p.schema, ['type', 'minimum', 'maximum']);
    // Between integers an exclusive bound is an inclusive one a step further in.
    const { exclusiveMinimum: xMin, exclusiveMaximum: xMax } = p.schema as Record<string, number | undefined>;
    if (xMin !== undefined) out.minimum = Math.max((out.minimum as number | undefined) ?? -Infinity, Math.floor(xMin) + 1);
    if (xMax !== undefined) out.maximum = Math.min((out.maximum as number | undefined) ?? Infinity, Math.ceil(xMax) - 1);
    return this.finish(p, out, ['current']);
  }

  private singleSelect(p: Property): JsonSchema {
    this.onlyKeywords(p, ['type', 'description', 'enum', 'minLength', 'maxLength']);
    const values = this.choices(p, p.schema);
    const titles = this.enumTitles(p);
    let out: JsonSchema;
    if (!titles) out = { type: 'string', enum: values };
    else if (this.subset === 'current') out = { type: 'string', oneOf: values.map((v) => ({ const: v, title: titleFor(titles, v) })) };
    else out = { type: 'string', enum: values, enumNames: values.map((v) => titleFor(titles, v)) };
    return this.finish(p, out, ['current']);
  }

  private multiSelect(p: Property): JsonSchema {
    // uniqueItems goes: a multiple choice picks each value at most once anyway.
    this.onlyKeywords(p, ['type', 'description', 'items', 'minItems', 'maxItems', 'uniqueItems']);
    const items = p.schema.items as JsonSchema | undefined;
    if (!items || items.type !== 'string' || items.enum === undefined) {
      this.unsupported(
        p,
        'is an array of something other than string choices; elicitation arrays are multiple choices among strings ' +
          '(@IsIn([...], { each: true }) or @IsEnum(E, { each: true }))',
      );
    }
    if (this.subset === 'legacy') {
      this.unsupported(p, 'is a multiple-choice array, which elicitation allows from protocol 2025-11-25 on');
    }
    const extra = Object.keys(items).find((k) => !['type', 'enum', 'minLength', 'maxLength'].includes(k));
    if (extra !== undefined) this.unsupported(p, `has ${describeKeyword(extra)} on its items`);
    const values = this.choices(p, items);
    const titles = this.enumTitles(p);
    const out: JsonSchema = pick(p.schema, ['type', 'minItems', 'maxItems']);
    out.items = titles
      ? { anyOf: values.map((v) => ({ const: v, title: titleFor(titles, v) })) }
      : { type: 'string', enum: values };
    return this.finish(p, out, ['current']);
  }

  /**
   * The string values of an enum, less those its length bounds exclude: the form then offers
   * exactly the values the DTO accepts.
   */
  private choices(p: Property, schema: JsonSchema): string[] {
    const { minLength = 0, maxLength = Infinity } = schema as { minLength?: number; maxLength?: number };
    const values = (schema.enum as string[]).filter((v) => v.length >= minLength && v.length <= maxLength);
    if (values.length === 0) this.unsupported(p, 'has no value that both its list and its length bounds allow');
    const titles = this.enumTitles(p);
    for (const [value, title] of Object.entries(titles ?? {})) {
      if (!values.includes(value)) {
        this.invalid(p, `has @EnumTitles for "${value}", which is not one of its values (${values.map((v) => JSON.stringify(v)).join(', ')})`);
      }
      if (typeof title !== 'string') this.invalid(p, `has a non-string @EnumTitles entry for "${value}"`);
    }
    return values;
  }

  /** Adds title, description and (where the subset has it) default, in the order forms read them. */
  private finish(p: Property, body: JsonSchema, defaultIn: readonly Subset[]): JsonSchema {
    const { type, ...rest } = body;
    const out: JsonSchema = { type };
    const title = metadataStore.titleOf(this.dto, p.name);
    if (title !== undefined) {
      if (typeof title !== 'string') this.invalid(p, 'has a @Title that is not a string');
      out.title = title;
    }
    if (typeof p.schema.description === 'string') out.description = p.schema.description;
    Object.assign(out, rest);
    const initial = this.initialValue(p);
    if (initial !== undefined && defaultIn.includes(this.subset)) out.default = initial;
    return out;
  }

  /**
   * The value a fresh instance gives the property, when it is one a form can show: a string,
   * a finite number, a boolean, or (for multi-select) an array of strings. It must pass the
   * property's own schema, or the form would start from a value the DTO rejects.
   */
  private initialValue(p: Property): unknown {
    const value = this.initialValues().get(p.name);
    const usable =
      typeof value === 'string' ||
      typeof value === 'boolean' ||
      (typeof value === 'number' && Number.isFinite(value)) ||
      (Array.isArray(value) && p.schema.type === 'array' && value.every((v) => typeof v === 'string'));
    if (!usable) return undefined;
    const problems = compileSchema(p.schema)(value);
    if (problems.length) {
      this.invalid(
        p,
        `starts as ${JSON.stringify(value)}, which its own validators reject (${problems.join('; ')}); fix the initializer or the validators`,
      );
    }
    return Array.isArray(value) ? [...value] : value;
  }

  /** Own enumerable values of `new dto()`; none when the constructor needs arguments it lacks. */
  private initialValues(): Map<string, unknown> {
    if (!this.defaults) {
      this.defaults = new Map();
      try {
        const instance = new this.dto() as object;
        for (const [key, value] of Object.entries(instance)) this.defaults.set(key, value);
      } catch {
        // A constructor that throws without arguments has no defaults to offer.
      }
    }
    return this.defaults;
  }

  private enumTitles(p: Property): Readonly<Record<string, string>> | undefined {
    const titles = metadataStore.enumTitlesOf(this.dto, p.name);
    return titles && Object.keys(titles).length ? titles : undefined;
  }

  private noEnumTitles(p: Property): void {
    if (this.enumTitles(p)) {
      this.invalid(p, 'has @EnumTitles but is not a string enum; add @IsIn([...]) or @IsEnum(...) with string values');
    }
  }

  /** Fails on any keyword outside `allowed` that changes which values are valid. */
  private onlyKeywords(p: Property, allowed: readonly string[]): void {
    for (const key of Object.keys(p.schema)) {
      if (allowed.includes(key) || HARMLESS.has(key)) continue;
      this.unsupported(p, `has ${describeKeyword(key)}, which a form could not enforce, so it would accept values the DTO rejects`);
    }
  }

  private unsupported(p: Property, problem: string): never {
    throw new DefinitionError(
      'UNSUPPORTED_PROPERTY_TYPE',
      `${this.dto.name}.${p.name} cannot be asked for by elicitation: it ${problem}. ${this.allows()}`,
    );
  }

  private invalid(p: Property, problem: string): never {
    throw new DefinitionError('INVALID_OPTION', `${this.dto.name}.${p.name} ${problem}.`);
  }

  private allows(): string {
    const base =
      `Elicitation (protocol ${this.version}) asks for a flat object whose properties are strings ` +
      '(minLength, maxLength, format email|uri|date|date-time), numbers or integers (minimum, maximum), ' +
      'booleans, or single choices among strings (@IsIn/@IsEnum)';
    return this.subset === 'current'
      ? `${base}, or multiple choices among strings (arrays with @IsIn/@IsEnum and { each: true }).`
      : `${base}; multiple-choice arrays need protocol 2025-11-25.`;
  }
}

function describeKeyword(key: string): string {
  return KEYWORD_SOURCES[key] ?? `the JSON Schema keyword "${key}"`;
}

/** A value's label, or the value itself; own keys only, so "constructor" is not Object's. */
function titleFor(titles: Readonly<Record<string, string>>, value: string): string {
  return Object.hasOwn(titles, value) ? titles[value] : value;
}

function pick(schema: JsonSchema, keys: readonly string[]): JsonSchema {
  const out: JsonSchema = {};
  for (const key of keys) if (schema[key] !== undefined) out[key] = schema[key];
  return out;
}



function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
