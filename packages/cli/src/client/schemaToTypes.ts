/**
 * JSON Schema 2020-12 → TypeScript declarations.
 *
 * A type says what every valid value is, and no more: keywords that narrow values without
 * changing their shape (minLength, pattern, minimum, not, if/then/else, …) leave the type as
 * wide as the shape; a schema the type system cannot state (a $ref outside the document,
 * $dynamicRef) becomes `unknown` with a comment saying why.
 */

export type JsonSchema = boolean | SchemaObject;

/** A JSON Schema that is an object (not `true` or `false`): its keywords. */
export interface SchemaObject {
  [keyword: string]: unknown;
}

/** A declaration to emit: `export type Name = …;` with its doc comment. */
interface Declaration {
  name: string;
  doc: string[];
  body: string;
}

/** The words a type may not be named, and names TypeScript's own types take. */
const RESERVED = new Set([
  'break', 'case', 'catch', 'class', 'const', 'continue', 'debugger', 'default', 'delete', 'do', 'else', 'enum', 'export', 'extends', 'false', 'finally',
  'for', 'function', 'if', 'import', 'in', 'instanceof', 'new', 'null', 'return', 'super', 'switch', 'this', 'throw', 'true', 'try', 'typeof', 'var',
  'void', 'while', 'with', 'as', 'implements', 'interface', 'let', 'package', 'private', 'protected', 'public', 'static', 'yield', 'any', 'boolean',
  'number', 'string', 'symbol', 'bigint', 'object', 'never', 'unknown', 'undefined', 'type', 'keyof', 'infer', 'is', 'asserts', 'readonly', 'unique',
  'Array', 'Record', 'Partial', 'Required', 'Readonly', 'Pick', 'Omit', 'Promise', 'Date', 'Object', 'String', 'Number', 'Boolean', 'Function', 'Symbol', 'Error', 'Map', 'Set',
]);

/** `add-bookmark` → `AddBookmark`, `2fa` → `_2fa`: a PascalCase identifier, never a reserved word. */
export function typeName(text: string): string {
  const words = text.split(/[^A-Za-z0-9_$]+|_+/).filter(Boolean);
  let name = words.map((word) => word[0].toUpperCase() + word.slice(1)).join('');
  if (!name) name = 'Type';
  if (/^[0-9]/.test(name)) name = `_${name}`;
  if (RESERVED.has(name)) name = `${name}Type`;
  return name;
}

/** A property key as TypeScript writes it: bare when it is an identifier, else quoted. */
export function propertyKey(name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : JSON.stringify(name);
}

/** A doc comment's lines, safe inside `/** … *\/`. */
function docLines(schema: SchemaObject, extra: string[] = []): string[] {
  const lines: string[] = [];
  const text = (value: unknown) => String(value).replace(/\*\//g, '*\\/').replace(/\r\n?/g, '\n');
  if (typeof schema.title === 'string' && schema.title.trim() && typeof schema.description !== 'string') lines.push(...text(schema.title).split('\n'));
  if (typeof schema.description === 'string' && schema.description.trim()) lines.push(...text(schema.description).split('\n'));
  if (typeof schema.format === 'string') lines.push(`@format ${text(schema.format)}`);
  if (schema.default !== undefined) lines.push(`@default ${text(JSON.stringify(schema.default))}`);
  if (schema.deprecated === true) lines.push('@deprecated');
  return [...lines, ...extra];
}

function comment(lines: string[], indent: string): string {
  if (lines.length === 0) return '';
  if (lines.length === 1) return `${indent}/** ${lines[0]} */\n`;
  return `${indent}/**\n${lines.map((line) => `${indent} *${line ? ` ${line}` : ''}`).join('\n')}\n${indent} */\n`;
}

/** A JSON value as a literal type: `"a"`, `1`, `{ "x": [true, null] }`. */
function literalType(value: unknown): string {
  if (value === null || typeof value !== 'object') return typeof value === 'number' && !Number.isFinite(value) ? 'number' : JSON.stringify(value);
  if (Array.isArray(value)) return `readonly [${value.map(literalType).join(', ')}]`;
  const entries = Object.entries(value as Record<string, unknown>);
  return entries.length ? `{ ${entries.map(([key, each]) => `${propertyKey(key)}: ${literalType(each)}`).join('; ')} }` : 'Record<string, never>';
}

function unknownBecause(reason: string): string {
  return `unknown /* ${reason.replace(/\*\//g, '*\\/')} */`;
}

/** The operators (`|`, `&`) a type has outside brackets, strings and comments. */
function operators(type: string): Set<string> {
  const found = new Set<string>();
  let depth = 0;
  for (let i = 0; i < type.length; i++) {
    const char = type[i];
    if (char === '"') {
      for (i++; i < type.length && type[i] !== '"'; i++) if (type[i] === '\\') i++;
    } else if (char === '/' && type[i + 1] === '*') {
      const end = type.indexOf('*/', i + 2);
      i = end < 0 ? type.length : end + 1;
    } else if ('([{<'.includes(char)) depth++;
    else if (')]}>'.includes(char)) depth--;
    else if (depth === 0 && (char === '|' || char === '&')) found.add(char);
  }
  return found;
}

/** A member of a union: parenthesized when it is an intersection. */
function unionMember(type: string): string {
  return operators(type).has('&') ? `(${type})` : type;
}

/** A member of an intersection, or an array's element: parenthesized when it has an operator. */
function group(type: string): string {
  return operators(type).size > 0 || type.startsWith('readonly ') ? `(${type})` : type;
}

function union(types: string[]): string {
  const unique = [...new Set(types)];
  if (unique.includes('unknown')) return 'unknown';
  const members = unique.filter((type) => type !== 'never');
  if (members.length === 0) return 'never';
  return members.length === 1 ? members[0] : members.map(unionMember).join(' | ');
}

function intersection(types: string[]): string {
  const members = [...new Set(types)].filter((type) => type !== 'unknown');
  if (members.includes('never')) return 'never';
  if (members.length === 0) return 'unknown';
  return members.length === 1 ? members[0] : members.map((type) => (operators(type).has('|') ? `(${type})` : type)).join(' & ');
}

const SIMPLE: Record<string, string> = { string: 'string', number: 'number', integer: 'number', boolean: 'boolean', null: 'null' };

/**
 * Turns schemas into named TypeScript types, sharing one namespace: `add(name, schema)` returns
 * the name it gave the schema's type (unique in this generator), and `declarations()` the text of
 * every type added so far, the `$defs` each schema refers to among them.
 */
export class TypeGenerator {
  private readonly declared: Declaration[] = [];
  private readonly taken = new Set<string>();
  private readonly shared = new Map<string, string>();

  /** A name not taken yet: `Name`, else `Name2`, `Name3`, … */
  uniqueName(wanted: string): string {
    const base = typeName(wanted);
    let name = base;
    for (let n = 2; this.taken.has(name); n++) name = `${base}${n}`;
    this.taken.add(name);
    return name;
  }

  /** Declares `schema` as a type named after `name`; returns the name it got. */
  add(name: string, schema: JsonSchema): string {
    const typeName = this.uniqueName(name);
    const document = new SchemaDocument(this, schema, typeName);
    const body = document.typeOf(schema, '');
    const doc = typeof schema === 'object' ? docLines(schema) : [];
    this.declared.push({ name: typeName, doc, body });
    document.finish();
    return typeName;
  }

  /**
   * @internal the name a $defs type got in an earlier schema whose $defs are the same (two
   * tools' schemas that share a DTO share its type); `name` given: remember it.
   */
  sharedName(key: string, name?: string): string | undefined {
    if (name !== undefined) this.shared.set(key, name);
    return this.shared.get(key);
  }

  /** @internal a named type of a schema's document ($defs, a recursive reference). */
  declare(declaration: Declaration): void {
    this.declared.push(declaration);
  }

  /** Every declaration, in the order the types were added (each schema's before its $defs). */
  declarations(): string {
    return this.declared.map(({ name, doc, body }) => `${comment(doc, '')}export type ${name} = ${body};\n`).join('\n');
  }
}

/** One schema document: its $refs resolved against it, each target declared once under a name. */
class SchemaDocument {
  /** JSON pointer (or anchor) → the name its type is declared under. */
  private readonly names = new Map<string, string>();
  private readonly pending: Array<{ pointer: string; schema: JsonSchema }> = [];

  constructor(
    private readonly generator: TypeGenerator,
    private readonly root: JsonSchema,
    rootName: string,
  ) {
    this.names.set('', rootName);
  }

  /** Declares the targets of the references met, and those their own references meet. */
  finish(): void {
    for (let next = this.pending.shift(); next; next = this.pending.shift()) {
      const name = this.names.get(next.pointer)!;
      const body = this.typeOf(next.schema, '');
      this.generator.declare({ name, doc: typeof next.schema === 'object' ? docLines(next.schema) : [], body });
    }
  }

  typeOf(schema: JsonSchema, indent: string): string {
    if (schema === true) return 'unknown';
    if (schema === false) return 'never';
    if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return unknownBecause('not a schema');
    const parts: string[] = [];
    if (typeof schema.$ref === 'string') parts.push(this.reference(schema.$ref));
    if (typeof schema.$dynamicRef === 'string') parts.push(unknownBecause(`$dynamicRef ${schema.$dynamicRef} is not followed`));
    if (Object.hasOwn(schema, 'const')) parts.push(literalType(schema.const));
    else if (Array.isArray(schema.enum)) parts.push(union(schema.enum.map(literalType)));
    else {
      const own = this.ownType(schema, indent);
      if (own !== undefined) parts.push(own);
    }
    if (Array.isArray(schema.allOf)) parts.push(intersection(schema.allOf.map((each) => this.typeOf(each as JsonSchema, indent))));
    for (const keyword of ['anyOf', 'oneOf'] as const) {
      const list = schema[keyword];
      if (Array.isArray(list)) parts.push(union(list.map((each) => this.typeOf(each as JsonSchema, indent))));
    }
    let type = intersection(parts);
    if (schema.nullable === true && type !== 'unknown') type = union([type, 'null']);
    return type;
  }

  /** The type `type` and the keywords of objects and arrays say, undefined when they say nothing. */
  private ownType(schema: SchemaObject, indent: string): string | undefined {
    let types: string[];
    if (typeof schema.type === 'string') types = [schema.type];
    else if (Array.isArray(schema.type)) types = schema.type.filter((each): each is string => typeof each === 'string');
    else {
      // No `type`: the keywords of one kind say which it is.
      const objectish = ['properties', 'required', 'additionalProperties', 'patternProperties'].some((k) => Object.hasOwn(schema, k));
      const arrayish = ['items', 'prefixItems'].some((k) => Object.hasOwn(schema, k));
      if (objectish === arrayish) return undefined;
      types = [objectish ? 'object' : 'array'];
    }
    return union(
      types.map((type) => {
        if (type === 'object') return this.objectType(schema, indent);
        if (type === 'array') return this.arrayType(schema, indent);
        return SIMPLE[type] ?? unknownBecause(`unknown type ${JSON.stringify(type)}`);
      }),
    );
  }

  private objectType(schema: SchemaObject, indent: string): string {
    const properties = (schema.properties && typeof schema.properties === 'object' ? schema.properties : {}) as Record<string, JsonSchema>;
    const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
    const inner = `${indent}  `;
    const members: string[] = [];
    const valueTypes: string[] = [];
    for (const [name, property] of Object.entries(properties)) {
      const type = this.typeOf(property, inner);
      valueTypes.push(type);
      const doc = typeof property === 'object' ? docLines(property) : [];
      members.push(`${comment(doc, inner)}${inner}${propertyKey(name)}${required.has(name) ? '' : '?'}: ${type};`);
    }
    // Required names without a property schema: any value.
    for (const name of required) {
      if (!Object.hasOwn(properties, name)) {
        members.push(`${inner}${propertyKey(name)}: unknown;`);
        valueTypes.push('unknown');
      }
    }
    const rest: string[] = [];
    const additional = schema.additionalProperties ?? schema.unevaluatedProperties;
    if (additional !== undefined && additional !== false) rest.push(this.typeOf(additional as JsonSchema, inner));
    if (schema.patternProperties && typeof schema.patternProperties === 'object') {
      for (const each of Object.values(schema.patternProperties as Record<string, JsonSchema>)) rest.push(this.typeOf(each, inner));
    }
    if (rest.length) members.push(`${inner}[key: string]: ${union([...rest, ...valueTypes])};`);
    if (members.length === 0) return additional === false ? 'Record<string, never>' : 'Record<string, unknown>';
    return `{\n${members.join('\n')}\n${indent}}`;
  }

  private arrayType(schema: SchemaObject, indent: string): string {
    // 2020-12: prefixItems and items; draft 2019-09 and before: items as a list and additionalItems.
    const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems : Array.isArray(schema.items) ? schema.items : undefined;
    const rest = (Array.isArray(schema.items) ? schema.additionalItems : schema.items) as JsonSchema | undefined;
    if (!prefix) return rest === undefined ? 'unknown[]' : `${group(this.typeOf(rest, indent))}[]`;
    const min = typeof schema.minItems === 'number' ? schema.minItems : 0;
    const elements = (prefix as JsonSchema[]).map((each, index) => `${this.typeOf(each, indent)}${index >= min ? '?' : ''}`);
    if (rest !== false) elements.push(`...${group(rest === undefined ? 'unknown' : this.typeOf(rest, indent))}[]`);
    return `[${elements.join(', ')}]`;
  }

  /** A $ref in this document: the name of its target's type, declared when first met. */
  private reference(ref: string): string {
    if (!ref.startsWith('#')) return unknownBecause(`$ref ${ref} is outside the schema`);
    const fragment = decodeURIComponent(ref.slice(1));
    const pointer = fragment.startsWith('/') || fragment === '' ? fragment : this.anchor(fragment);
    if (pointer === undefined) return unknownBecause(`$ref ${ref} names no $anchor of the schema`);
    const known = this.names.get(pointer);
    if (known) return known;
    const target = this.resolve(pointer);
    if (target === undefined) return unknownBecause(`$ref ${ref} points at nothing in the schema`);
    // A target that refers only to $defs means the same in every schema with these $defs.
    const text = JSON.stringify(target);
    const root = typeof this.root === 'object' ? this.root : {};
    const key = /"\$ref":"#(?!\/(\$defs|definitions)\/)/.test(text) ? undefined : JSON.stringify([text, root.$defs, root.definitions]);
    const shared = key === undefined ? undefined : this.generator.sharedName(key);
    if (shared) {
      this.names.set(pointer, shared);
      return shared;
    }
    const segments = pointer.split('/');
    const name = this.generator.uniqueName(segments[segments.length - 1].replace(/~1/g, '/').replace(/~0/g, '~'));
    if (key !== undefined) this.generator.sharedName(key, name);
    this.names.set(pointer, name);
    this.pending.push({ pointer, schema: target });
    return name;
  }

  private resolve(pointer: string): JsonSchema | undefined {
    let node: unknown = this.root;
    for (const raw of pointer.split('/').slice(1)) {
      const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
      if (node === null || typeof node !== 'object' || !Object.hasOwn(node, key)) return undefined;
      node = (node as Record<string, unknown>)[key];
    }
    return typeof node === 'boolean' || (node !== null && typeof node === 'object' && !Array.isArray(node)) ? (node as JsonSchema) : undefined;
  }

  /** The pointer of the subschema whose `$anchor` is `name`. */
  private anchor(name: string): string | undefined {
    const visit = (node: unknown, pointer: string): string | undefined => {
      if (node === null || typeof node !== 'object') return undefined;
      if (!Array.isArray(node) && (node as SchemaObject).$anchor === name) return pointer;
      for (const [key, value] of Object.entries(node)) {
        if (key === 'const' || key === 'enum' || key === 'default' || key === 'examples') continue;
        const found = visit(value, `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`);
        if (found !== undefined) return found;
      }
      return undefined;
    };
    return visit(this.root, '');
  }
}

/** One schema's declarations: `export type Name = …;` and the types of its $defs. */
export function schemaToTypeScript(schema: JsonSchema, name: string): string {
  const generator = new TypeGenerator();
  generator.add(name, schema);
  return generator.declarations();
}
