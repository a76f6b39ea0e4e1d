import type Ajv2020 from 'ajv/dist/2020';
import type { ValidateFunction } from 'ajv/dist/2020';
import type { JsonSchema } from '../schema';
import { formatAjvErrors } from './formatErrors';
import { codeGenerationAllowed, describeSchema, isCodeGenerationRefusal, noteSchema, notPrecompiledError, precompiledValidator } from './precompiled';

/** Checks a plain value against a schema: readable problems, none when the value is valid. */
export type SchemaValidator = (value: unknown) => string[];

/**
 * A new ajv instance: allErrors, so a model sees every mistake at once; verbose, so messages
 * can quote the schema. Loaded on first use: ajv is a fifth of the framework's start-up time.
 * validateSchema off: checking each generated schema against the 2020-12 meta-schema costs
 * tens of milliseconds at startup and finds nothing strict compilation would not; hand-written
 * schemas are checked explicitly (checkSchema).
 */
export function newAjv(strict: boolean, options: { source?: boolean } = {}): Ajv2020 {
  const Ajv: typeof Ajv2020 = require('ajv/dist/2020').default;
  const addFormats: typeof import('ajv-formats').default = require('ajv-formats').default;
  // `source` keeps each function's code, for typemcp build's standalone validators.
  const instance = new Ajv({ strict, allErrors: true, verbose: true, validateSchema: false, ...(options.source ? { code: { source: true } } : {}) });
  addFormats(instance);
  // 2026-07-28: names the HTTP header a tool argument is mirrored in; an annotation only.
  if (strict) instance.addKeyword({ keyword: 'x-mcp-header', schemaType: 'string' });
  return instance;
}

let shared: Ajv2020 | undefined;
let lenient: Ajv2020 | undefined;

/** The instance for the schemas the framework generates: strict, so its own mistakes fail at startup. */
function ajv(): Ajv2020 {
  return (shared ??= newAjv(true));
}

/**
 * The instance for schemas an author wrote by hand: any valid JSON Schema 2020-12 is accepted
 * as written (`required` inside `anyOf`, `if` without `type`, annotation keywords such as
 * `x-mcp-header`), since the protocol allows the whole vocabulary.
 */
function lenientAjv(): Ajv2020 {
  return (lenient ??= newAjv(false));
}

/** Compiles a hand-written JSON Schema (2020-12) as written; see lenientAjv. */
export function compileAuthoredSchema(schema: JsonSchema): SchemaValidator {
  let validate = compiledAuthored.get(schema);
  if (!validate) {
    noteSchema(schema, false);
    validate = precompiledValidator(schema, false) ?? compileNow(lenientAjv, schema);
    compiledAuthored.set(schema, validate);
  }
  const check = validate;
  return (value) => (check(value) ? [] : formatAjvErrors(check.errors ?? []));
}

const compiledAuthored = new WeakMap<object, ValidateFunction>();
const compiled = new WeakMap<object, ValidateFunction>();

/** The compiled ajv function for a schema object; each object is compiled once. */
export function compiledSchema(schema: JsonSchema): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    noteSchema(schema, true);
    validate = precompiledValidator(schema, true) ?? compileNow(ajv, schema);
    compiled.set(schema, validate);
  }
  return validate;
}

/** Compiles with ajv; where code generation is forbidden, says how to get the validator built instead. */
function compileNow(instance: () => Ajv2020, schema: JsonSchema): ValidateFunction {
  if (!codeGenerationAllowed()) throw notPrecompiledError(describeSchema(schema));
  try {
    return instance().compile(schema);
  } catch (error) {
    throw isCodeGenerationRefusal(error) ? notPrecompiledError(describeSchema(schema)) : error;
  }
}

/** Compiles a JSON Schema (2020-12) into a validator of plain values (compiled once per schema object). */
export function compileSchema(schema: JsonSchema): SchemaValidator {
  const validate = compiledSchema(schema);
  return (value) => (validate(value) ? [] : formatAjvErrors(validate.errors ?? []));
}

/** Like compileSchema, but compiles on the first check: start-up stays free of ajv. */
export function lazySchemaValidator(schema: JsonSchema): SchemaValidator {
  noteSchema(schema, true);
  let check: SchemaValidator | undefined;
  return (value) => (check ??= compileSchema(schema))(value);
}

/** Throws when a hand-written schema is not valid JSON Schema 2020-12 (checked against the meta-schema). */
export function checkSchema(schema: JsonSchema): void {
  noteSchema(schema, false);
  // Checked when the validator was built; the meta-schema itself would need compiling.
  if (precompiledValidator(schema, false)) return;
  // The meta-schema itself would be compiled.
  if (!codeGenerationAllowed()) throw notPrecompiledError(describeSchema(schema));
  const instance = lenientAjv();
  if (!instance.validateSchema(schema)) throw new Error(instance.errorsText(instance.errors));
}
