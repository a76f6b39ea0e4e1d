import type { ValidateFunction } from 'ajv/dist/2020';
import { PRECOMPILED_VALIDATORS_KEY, SCHEMA_COLLECTOR_KEY } from '../constants';
import { DefinitionError } from '../errors';
import type { JsonSchema } from '../schema';

/**
 * Validators compiled at build time. `typemcp build` loads the application, hears every schema
 * its servers will compile (a collector on globalThis), and writes ajv's standalone code for
 * each into the bundle, which installs the table before the application runs. At run time a
 * schema is looked up by its key before ajv compiles anything: a runtime that forbids code
 * generation from strings (Cloudflare Workers) validates with no `new Function` at all.
 */

/** A schema as the framework compiles it: strict (schemas it generates) or as written (an author's). */
export interface SchemaEntry {
  readonly schema: JsonSchema;
  readonly strict: boolean;
}

type Table = Readonly<Record<string, ValidateFunction>>;
type Collector = Map<string, SchemaEntry>;

const slots = globalThis as { [PRECOMPILED_VALIDATORS_KEY]?: Table; [SCHEMA_COLLECTOR_KEY]?: Collector };

/** The key of a schema: the same text at build time and at run time, since the same code builds it. */
export function schemaKey(schema: JsonSchema, strict: boolean): string {
  return `${strict ? 's' : 'l'}${JSON.stringify(schema)}`;
}

/** The validator compiled at build time for this schema, if the bundle has one. */
export function precompiledValidator(schema: JsonSchema, strict: boolean): ValidateFunction | undefined {
  const table = slots[PRECOMPILED_VALIDATORS_KEY];
  if (!table) return undefined;
  const key = schemaKey(schema, strict);
  return Object.hasOwn(table, key) ? table[key] : undefined;
}

/** Where nothing may be compiled: the schemas the servers of this process will compile, each object once. */
const known: SchemaEntry[] = [];
const noted = new WeakSet<object>();

/** Records a schema that will be compiled (and tells a collecting build of it). */
export function noteSchema(schema: JsonSchema, strict: boolean): void {
  const collector = slots[SCHEMA_COLLECTOR_KEY];
  if (collector) collector.set(schemaKey(schema, strict), { schema, strict });
  // Where ajv may compile, nothing is checked at start-up, so nothing is kept.
  if (codeGenerationAllowed() || noted.has(schema)) return;
  noted.add(schema);
  known.push({ schema, strict });
}

/**
 * At start-up, where code generation is forbidden: every schema the servers will compile must
 * have its precompiled validator, or the server refuses to start, saying how to build one.
 */
export function assertPrecompiled(): void {
  if (codeGenerationAllowed()) return;
  for (const { schema, strict } of known) if (!precompiledValidator(schema, strict)) throw notPrecompiledError(describeSchema(schema));
}

/** A schema in an error message: its title, or its opening text. */
export function describeSchema(schema: JsonSchema): string {
  const title = typeof schema.title === 'string' ? schema.title : undefined;
  const text = JSON.stringify(schema);
  return title ? `The schema "${title}"` : `The schema ${text.length > 80 ? `${text.slice(0, 77)}...` : text}`;
}

let codeGeneration: boolean | undefined;

/** Whether this runtime lets ajv compile (`new Function`); Workers do not. */
export function codeGenerationAllowed(): boolean {
  if (codeGeneration === undefined) {
    try {
      codeGeneration = new Function('return true')() === true;
    } catch {
      codeGeneration = false;
    }
  }
  return codeGeneration;
}

/** The error for a schema that needs compiling where nothing may be compiled. */
export function notPrecompiledError(what: string): DefinitionError {
  return new DefinitionError(
    'VALIDATOR_NOT_PRECOMPILED',
    `${what} has no precompiled validator, and this runtime forbids compiling one (no code generation from strings): ` +
      'bundle the server with `typemcp build --target <runtime>`, which compiles every validator at build time',
  );
}

/** ajv's failure when code generation is forbidden (V8: EvalError, "Code generation from strings disallowed"). */
export function isCodeGenerationRefusal(error: unknown): boolean {
  return error instanceof EvalError || (error instanceof Error && /code generation from strings/i.test(error.message));
}
