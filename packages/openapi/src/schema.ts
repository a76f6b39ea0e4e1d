import type { Documents } from './refs';
import { isRef } from './refs';

export type Schema = Record<string, unknown>;

/** Input schemas drop `readOnly` properties (never sent); output schemas drop `examples` (nobody reads them). */
export type SchemaMode = 'input' | 'output';

/** The `format`s the server's validator knows (ajv-formats); others are dropped, as JSON Schema lets validators ignore them. */
const FORMATS = new Set(
  'date time date-time iso-time iso-date-time duration uri uri-reference uri-template url email hostname ipv4 ipv6 regex uuid json-pointer json-pointer-uri-fragment relative-json-pointer byte int32 int64 float double password binary'.split(' '),
);
const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object', 'null']);
const ONE_SCHEMA = ['additionalProperties', 'items', 'not', 'if', 'then', 'else', 'contains', 'propertyNames', 'unevaluatedProperties', 'unevaluatedItems'];
const SCHEMA_LISTS = ['allOf', 'anyOf', 'prefixItems'];
const SCHEMA_MAPS = ['patternProperties', 'dependentSchemas'];
const NUMBERS = ['multipleOf', 'maximum', 'minimum'];
const COUNTS = ['maxLength', 'minLength', 'maxItems', 'minItems', 'maxProperties', 'minProperties', 'maxContains', 'minContains'];
const FLAGS = ['uniqueItems', 'deprecated', 'readOnly', 'writeOnly'];
const TEXTS = ['title', 'description', 'contentMediaType', 'contentEncoding'];

/**
 * Turns OpenAPI 3.0 and 3.1 schemas into JSON Schema 2020-12 that ajv compiles: refs inlined
 * (cycles become `$defs`), 3.0's `nullable` and boolean `exclusiveMinimum`/`exclusiveMaximum`
 * rewritten, `example` made `examples`, `oneOf` made `anyOf` (OpenAPI's alternatives often
 * overlap, told apart by a `discriminator`), and everything else that is not JSON Schema
 * (`x-*`, `discriminator`, `xml`, `externalDocs`, unknown formats, patterns JavaScript cannot
 * compile) left out. Conversions without cycles are shared between schemas.
 */
export class SchemaConverter {
  /** Converted ref targets whose expansion met no cycle, by mode and key: the same object for every schema using them. */
  readonly shared = new Map<string, Schema>();

  constructor(readonly documents: Documents) {}

  /** A conversion of one tool's schemas: one set of `$defs`. */
  session(mode: SchemaMode): SchemaSession {
    return new SchemaSession(this, mode);
  }
}

export class SchemaSession {
  /** The definitions that cycles needed, by name; the schemas of this session refer to them as `#/$defs/<name>`. */
  readonly defs: Record<string, Schema> = {};
  private readonly expanding = new Set<string>();
  private readonly defNames = new Map<string, string>();
  /** How many refs to `$defs` were written so far: a conversion that wrote none can be shared. */
  private defRefs = 0;

  constructor(
    private readonly converter: SchemaConverter,
    private readonly mode: SchemaMode,
  ) {}

  /** `root` with the definitions its refs need. */
  withDefs(root: Schema): Schema {
    return Object.keys(this.defs).length === 0 ? root : { ...root, $defs: this.defs };
  }

  convert(node: unknown, base: string): Schema {
    if (node === true) return {};
    if (node === false) return { not: {} };
    if (typeof node !== 'object' || node === null || Array.isArray(node)) return {};
    const source = node as Record<string, unknown>;
    if (isRef(source)) return this.withSiblings(this.ref(source.$ref, base), source, base);
    return this.convertObject(source, base);
  }

  private ref(ref: string, base: string): Schema {
    const target = this.converter.documents.resolve(ref, base);
    const { key } = target;
    const named = this.defNames.get(key);
    if (named !== undefined) return this.refTo(named);
    if (this.expanding.has(key)) {
      const name = this.nameFor(key);
      this.defNames.set(key, name);
      return this.refTo(name);
    }
    const cacheKey = `${this.mode}\u0000${key}`;
    const shared = this.converter.shared.get(cacheKey);
    if (shared) return shared;
    const before = this.defRefs;
    this.expanding.add(key);
    const converted = this.convert(target.value, target.url);
    this.expanding.delete(key);
    const name = this.defNames.get(key);
    if (name !== undefined) {
      this.defs[name] = converted;
      return this.refTo(name);
    }
    if (this.defRefs === before) this.converter.shared.set(cacheKey, converted);
    return converted;
  }

  private refTo(name: string): Schema {
    this.defRefs++;
    return { $ref: `#/$defs/${name}` };
  }

  /** A definition's name: the last segment of its pointer, made unique. */
  private nameFor(key: string): string {
    const last = key.slice(key.lastIndexOf('/') + 1);
    const stem = decodeSegment(last).replace(/[^A-Za-z0-9_.-]/g, '_') || 'def';
    let name = stem;
    for (let n = 2; Object.prototype.hasOwnProperty.call(this.defs, name) || [...this.defNames.values()].includes(name); n++) name = `${stem}_${n}`;
    return name;
  }

  /**
   * 3.1 lets a `$ref` have siblings; 3.0 ignores them, but a description is worth keeping, and
   * `nullable` beside a `$ref` is common enough in 3.0 documents to honour.
   */
  private withSiblings(target: Schema, source: Record<string, unknown>, base: string): Schema {
    const siblings = Object.keys(source).filter((key) => key !== '$ref' && key !== 'nullable' && !key.startsWith('x-'));
    let out = target;
    if (siblings.length > 0 && siblings.every((key) => key === 'description' || key === 'summary' || key === 'title')) {
      const text = typeof source.description === 'string' ? source.description : typeof source.summary === 'string' ? source.summary : undefined;
      out = { ...target };
      if (text !== undefined) out.description = text;
      if (typeof source.title === 'string') out.title = source.title;
    } else if (siblings.length > 0) {
      const { $ref: _ref, nullable: _nullable, ...rest } = source;
      const extra = this.convertObject(rest, base);
      if (Object.keys(extra).length > 0) out = { allOf: [target], ...extra };
    }
    // `target` may be shared: nullable() changes what it is given.
    return source.nullable === true ? nullable(out === target ? { ...target } : out) : out;
  }

  private convertObject(source: Record<string, unknown>, base: string): Schema {
    const out: Schema = {};
    for (const key of Object.keys(source)) {
      const value = source[key];
      if (key === 'type') {
        const types = (Array.isArray(value) ? value : [value]).filter((t): t is string => typeof t === 'string' && TYPES.has(t));
        if (types.length > 0) out.type = Array.isArray(value) ? types : types[0];
      } else if (key === 'properties') {
        if (isObject(value)) out.properties = this.convertMap(value, base);
      } else if (key === 'oneOf' || SCHEMA_LISTS.includes(key)) {
        if (Array.isArray(value) && value.length > 0) {
          const list = value.map((item) => this.convert(item, base));
          const name = key === 'oneOf' ? 'anyOf' : key;
          out[name] = Array.isArray(out[name]) ? [...(out[name] as Schema[]), ...list] : list;
        }
      } else if (ONE_SCHEMA.includes(key)) {
        if (typeof value === 'boolean' && key !== 'items') out[key] = value;
        else if (typeof value === 'boolean') out[key] = value ? {} : { not: {} };
        else if (isObject(value)) out[key] = this.convert(value, base);
      } else if (SCHEMA_MAPS.includes(key)) {
        if (isObject(value)) out[key] = this.convertMap(value, base);
      } else if (NUMBERS.includes(key)) {
        if (typeof value === 'number' && Number.isFinite(value) && (key !== 'multipleOf' || value > 0)) out[key] = value;
      } else if (COUNTS.includes(key)) {
        if (Number.isInteger(value) && (value as number) >= 0) out[key] = value;
      } else if (FLAGS.includes(key)) {
        if (typeof value === 'boolean') out[key] = value;
      } else if (TEXTS.includes(key)) {
        if (typeof value === 'string') out[key] = value;
      } else if (key === 'format') {
        if (typeof value === 'string' && FORMATS.has(value)) out.format = value;
      } else if (key === 'pattern') {
        if (typeof value === 'string' && compiles(value)) out.pattern = value;
      } else if (key === 'required') {
        if (Array.isArray(value)) out.required = [...new Set(value.filter((name) => typeof name === 'string'))];
      } else if (key === 'enum') {
        if (Array.isArray(value) && value.length > 0) out.enum = value;
      } else if (key === 'const' || key === 'default') {
        out[key] = value;
      } else if (key === 'dependentRequired') {
        if (isObject(value) && Object.values(value).every((list) => Array.isArray(list) && list.every((name) => typeof name === 'string'))) out[key] = value;
      } else if (key === 'exclusiveMinimum' || key === 'exclusiveMaximum') {
        if (typeof value === 'number' && Number.isFinite(value)) out[key] = value;
      } else if (key === 'examples' && this.mode === 'input') {
        if (Array.isArray(value)) out.examples = value;
      } else if (key === 'example' && this.mode === 'input' && source.examples === undefined) {
        out.examples = [value];
      }
      // Anything else is not JSON Schema 2020-12, or nothing a validator or a model needs.
    }
    // 3.0: a boolean exclusiveMinimum makes minimum exclusive.
    for (const [flag, bound] of [['exclusiveMinimum', 'minimum'], ['exclusiveMaximum', 'maximum']] as const) {
      if (source[flag] === true && typeof out[bound] === 'number') {
        out[flag] = out[bound];
        delete out[bound];
      }
    }
    if (isObject(out.properties)) this.dropUnsent(out);
    return source.nullable === true ? nullable(out) : out;
  }

  private convertMap(map: Record<string, unknown>, base: string): Record<string, Schema> {
    const out: Record<string, Schema> = {};
    for (const name of Object.keys(map)) out[name] = this.convert(map[name], base);
    return out;
  }

  /** Inputs never send `readOnly` properties; outputs need not hold `writeOnly` ones. */
  private dropUnsent(out: Schema): void {
    const properties = out.properties as Record<string, Schema>;
    const flag = this.mode === 'input' ? 'readOnly' : 'writeOnly';
    const unsent = Object.keys(properties).filter((name) => properties[name][flag] === true);
    if (unsent.length === 0) return;
    if (this.mode === 'input') {
      const kept: Record<string, Schema> = {};
      for (const name of Object.keys(properties)) if (!unsent.includes(name)) kept[name] = properties[name];
      out.properties = kept;
    }
    if (Array.isArray(out.required)) out.required = (out.required as string[]).filter((name) => !unsent.includes(name));
  }
}

/** OpenAPI 3.0's `nullable: true`, in 2020-12. */
function nullable(out: Schema): Schema {
  if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  if (typeof out.type === 'string') {
    out.type = [out.type, 'null'];
    return out;
  }
  if (Array.isArray(out.type)) {
    if (!out.type.includes('null')) out.type = [...out.type, 'null'];
    return out;
  }
  return { anyOf: [out, { type: 'null' }] };
}

function compiles(pattern: string): boolean {
  try {
    new RegExp(pattern, 'u');
    return true;
  } catch {
    return false;
  }
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment).replace(/~1/g, '/').replace(/~0/g, '~');
  } catch {
    return segment;
  }
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
