import Ajv2020 from 'ajv/dist/2020';
import type { ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { JsonSchema } from '../schema';
import { formatAjvErrors } from './formatErrors';

/** Checks a plain value against a schema: readable problems, none when the value is valid. */
export type SchemaValidator = (value: unknown) => string[];

let shared: Ajv2020 | undefined;

/**
 * The one ajv instance: strict, so a schema the framework cannot vouch for fails at startup;
 * allErrors, so a model sees every mistake at once; verbose, so messages can quote the schema.
 */
function ajv(): Ajv2020 {
  if (!shared) {
    shared = new Ajv2020({ strict: true, allErrors: true, verbose: true });
    addFormats(shared);
  }
  return shared;
}

const compiled = new WeakMap<object, ValidateFunction>();

/** The compiled ajv function for a schema object; each object is compiled once. */
export function compiledSchema(schema: JsonSchema): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv().compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

/** Compiles a JSON Schema (2020-12) into a validator of plain values (compiled once per schema object). */
export function compileSchema(schema: JsonSchema): SchemaValidator {
  const validate = compiledSchema(schema);
  return (value) => (validate(value) ? [] : formatAjvErrors(validate.errors ?? []));
}
