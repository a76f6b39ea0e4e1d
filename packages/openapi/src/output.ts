import type { Operation } from './operations';
import { labelOf } from './operations';
import type { OpenApiWarning } from './options';
import type { Schema, SchemaConverter } from './schema';
import { isObject } from './schema';
import { jsonSize } from './size';

/**
 * How a JSON answer becomes `structuredContent`: `never` wrapped (the schema says object),
 * `always` wrapped as `{ result }` (the schema says something else), or `auto`: objects as they
 * are, anything else wrapped (no schema).
 */
export type Wrapping = 'never' | 'always' | 'auto';

export interface OutputPlan {
  readonly schema?: Schema;
  readonly wrap: Wrapping;
}

const JSON_MEDIA = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;
const NONE: OutputPlan = { wrap: 'auto' };

/**
 * The output schema: only for an operation with one success response (`200`, `201`, `2XX`…)
 * whose content is JSON with a schema. Wrapped as `{ result }` unless that schema is an
 * object; left out over `maxBytes`.
 */
export function planOutput(operation: Operation, converter: SchemaConverter, maxBytes: number, warn: (warning: OpenApiWarning) => void): OutputPlan {
  const successes = [...operation.responses.keys()].filter((status) => /^2(?:\d\d|XX)$/i.test(status));
  if (successes.length !== 1) return NONE;
  const response = operation.responses.get(successes[0])!;
  const content = isObject(response.value.content) ? response.value.content : {};
  const types = Object.keys(content);
  const json = types.find((type) => JSON_MEDIA.test(type));
  if (!json) return NONE;
  const media = content[json];
  if (!isObject(media) || media.schema === undefined) return NONE;
  const session = converter.session('output');
  let converted = session.convert(media.schema, response.url);
  // A cyclic object at the root: the root itself must say `type: 'object'`, so it holds a copy of its definition.
  const defined = typeof converted.$ref === 'string' && Object.keys(converted).length === 1 ? session.defs[converted.$ref.slice('#/$defs/'.length)] : undefined;
  if (defined?.type === 'object') converted = { ...defined };
  const wrap: Wrapping = converted.type === 'object' ? 'never' : 'always';
  const root = wrap === 'never' ? converted : { type: 'object', properties: { result: converted }, required: ['result'] };
  const schema = session.withDefs(root);
  const size = jsonSize(schema);
  if (size > maxBytes) {
    warn({
      code: 'OUTPUT_SCHEMA_LEFT_OUT',
      operation: labelOf(operation),
      message: `${labelOf(operation)}: the output schema (${size} bytes of JSON) is over maxSchemaBytes (${maxBytes}); the tool has none`,
    });
    return NONE;
  }
  return { schema, wrap };
}
