import type { Operation, Parameter } from './operations';
import { labelOf } from './operations';
import type { OpenApiWarning } from './options';
import type { Schema, SchemaConverter, SchemaSession } from './schema';
import { isObject } from './schema';
import { jsonSize } from './size';

/** How a request body is sent: JSON, a urlencoded or multipart form, or the text as it is. */
export type BodyKind = 'json' | 'form' | 'multipart' | 'text';

/** One argument of the tool and the parameter it fills. */
export interface Binding {
  readonly property: string;
  readonly parameter: Parameter;
  readonly style: string;
  readonly explode: boolean;
  /** A parameter described by `content` rather than `schema`: its value travels as JSON text. */
  readonly json: boolean;
}

export interface BodyBinding {
  readonly mediaType: string;
  readonly kind: BodyKind;
  readonly required: boolean;
}

/** The tool's input schema and how its arguments make the request. */
export interface InputPlan {
  readonly schema: Schema;
  readonly bindings: readonly Binding[];
  readonly body?: BodyBinding;
}

/** The argument that holds the request body. */
export const BODY = 'body';

const DEFAULT_STYLE = { path: 'simple', query: 'form', header: 'simple', cookie: 'form' } as const;
const LOCATIONS = ['path', 'query', 'header', 'cookie'] as const;

/**
 * One object schema for an operation: its parameters as properties (a name already taken, by
 * another location's parameter or by `body`, becomes `<in>_<name>`: `query_id`), and `body` for
 * the request body. Over `maxBytes`, the body's schema is loosened first, then every one.
 */
export function planInput(operation: Operation, converter: SchemaConverter, maxBytes: number, warn: (warning: OpenApiWarning) => void): InputPlan {
  const body = chooseBody(operation);
  const taken = new Set<string>(body ? [BODY] : []);
  const bindings: Binding[] = [];
  for (const location of LOCATIONS) {
    for (const parameter of operation.parameters) {
      if (parameter.in !== location) continue;
      const value = parameter.source.value;
      const style = typeof value.style === 'string' ? value.style : DEFAULT_STYLE[location];
      bindings.push({
        property: claim(taken, parameter),
        parameter,
        style,
        explode: typeof value.explode === 'boolean' ? value.explode : style === 'form',
        json: value.schema === undefined && isObject(value.content),
      });
    }
  }
  const build = (loosen: 'none' | 'body' | 'all'): Schema => {
    const session = converter.session('input');
    const properties: Record<string, Schema> = {};
    const required: string[] = [];
    for (const binding of bindings) {
      properties[binding.property] = loosen === 'all' ? loose(parameterDescription(binding), {}) : parameterSchema(session, binding);
      if (binding.parameter.required) required.push(binding.property);
    }
    if (body) {
      properties[BODY] = loosen === 'none' ? bodySchema(session, operation, body) : looseBody(session, operation, body);
      if (body.required) required.push(BODY);
    }
    const schema: Schema = { type: 'object', properties };
    if (required.length > 0) schema.required = required;
    schema.additionalProperties = false;
    return session.withDefs(schema);
  };
  let schema = build('none');
  const size = jsonSize(schema);
  if (size > maxBytes) {
    schema = build(body ? 'body' : 'all');
    if (body && jsonSize(schema) > maxBytes) schema = build('all');
    warn({
      code: 'SCHEMA_TOO_LARGE',
      operation: labelOf(operation),
      message: `${labelOf(operation)}: the input schema (${size} bytes of JSON) is over maxSchemaBytes (${maxBytes}); ${body ? "the request body's" : "the parameters'"} schema is loosened`,
    });
  }
  return { schema, bindings, body };
}

/** `name`, or `<in>_<name>` when taken, or that with a number. */
function claim(taken: Set<string>, parameter: Parameter): string {
  let property = parameter.name;
  if (taken.has(property)) property = `${parameter.in}_${parameter.name}`;
  for (let n = 2; taken.has(property); n++) property = `${parameter.in}_${parameter.name}_${n}`;
  taken.add(property);
  return property;
}

function parameterSchema(session: SchemaSession, binding: Binding): Schema {
  const { value, url } = binding.parameter.source;
  let schema: Schema;
  if (value.schema !== undefined) schema = session.convert(value.schema, url);
  else if (binding.json) {
    const content = value.content as Record<string, unknown>;
    const media = content[Object.keys(content)[0]];
    schema = session.convert(isObject(media) ? media.schema : undefined, url);
  } else schema = { type: 'string' };
  const out: Schema = { ...schema };
  const description = parameterDescription(binding);
  if (description !== undefined) out.description = description;
  if (value.deprecated === true) out.deprecated = true;
  const examples = examplesOf(value);
  if (examples) out.examples = examples;
  return out;
}

function parameterDescription(binding: Binding): string | undefined {
  const { name, source } = binding.parameter;
  const text = typeof source.value.description === 'string' && source.value.description !== '' ? source.value.description : undefined;
  if (binding.property === name) return text;
  // A renamed argument says which parameter it fills.
  const note = `(The ${binding.parameter.in} parameter "${name}".)`;
  return text === undefined ? note : `${text} ${note}`;
}

function examplesOf(value: Record<string, unknown>): unknown[] | undefined {
  if (value.example !== undefined) return [value.example];
  if (!isObject(value.examples)) return undefined;
  const values = Object.values(value.examples).filter((e): e is Record<string, unknown> => isObject(e) && 'value' in e).map((e) => e.value);
  return values.length > 0 ? values : undefined;
}

/** The media type the body is sent as: JSON first, then forms, then text, then whatever comes first. */
function chooseBody(operation: Operation): BodyBinding | undefined {
  const requestBody = operation.requestBody?.value;
  if (!requestBody || !isObject(requestBody.content)) return undefined;
  const types = Object.keys(requestBody.content);
  if (types.length === 0) return undefined;
  const required = requestBody.required === true;
  const find = (test: RegExp) => types.find((type) => test.test(type));
  const json = find(/^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i) ?? find(/^\*\/\*$/);
  if (json) return { mediaType: json === '*/*' ? 'application/json' : json, kind: 'json', required };
  const form = find(/^application\/x-www-form-urlencoded\s*(?:;|$)/i);
  if (form) return { mediaType: form, kind: 'form', required };
  const multipart = find(/^multipart\/form-data\s*(?:;|$)/i);
  if (multipart) return { mediaType: multipart, kind: 'multipart', required };
  return { mediaType: find(/^text\//i) ?? types[0], kind: 'text', required };
}

function mediaOf(operation: Operation, body: BodyBinding): Record<string, unknown> | undefined {
  const content = operation.requestBody!.value.content as Record<string, unknown>;
  const media = content[body.mediaType] ?? content['*/*'];
  return isObject(media) ? media : undefined;
}

function bodySchema(session: SchemaSession, operation: Operation, body: BodyBinding): Schema {
  const description = bodyDescription(operation);
  if (body.kind === 'text') return description === undefined ? { type: 'string' } : { type: 'string', description };
  const media = mediaOf(operation, body);
  const schema = media?.schema === undefined ? {} : session.convert(media.schema, operation.requestBody!.url);
  return description === undefined ? schema : { ...schema, description };
}

function looseBody(session: SchemaSession, operation: Operation, body: BodyBinding): Schema {
  if (body.kind === 'text') return bodySchema(session, operation, body);
  const media = mediaOf(operation, body);
  const type = isObject(media?.schema) && typeof media.schema.type === 'string' ? media.schema.type : undefined;
  const docs = isObject(operation.source.value.externalDocs) && typeof operation.source.value.externalDocs.url === 'string' ? ` (${operation.source.value.externalDocs.url})` : '';
  const note = `Its full schema is too large to show here: see the API's documentation${docs}.`;
  return loose(bodyDescription(operation), type === undefined ? {} : { type }, note);
}

function loose(description: string | undefined, schema: Schema, note?: string): Schema {
  const text = [description, note].filter((part) => part !== undefined).join(' ');
  return text === '' ? schema : { ...schema, description: text };
}

function bodyDescription(operation: Operation): string | undefined {
  const { description } = operation.requestBody!.value;
  return typeof description === 'string' && description !== '' ? description : undefined;
}
