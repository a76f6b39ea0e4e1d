import { validate } from 'class-validator';
import type { ValidationError } from 'class-validator';
import type { Constructor } from '../metadata';
import { describeDto } from '../schema';
import { compiledSchema } from './ajv';
import { noteSchema } from './precompiled';
import { formatAjvErrors, formatClassValidatorErrors, mergeMessages } from './formatErrors';
import { isFlatDto } from './flatDto';
import { freeFormLifter } from './freeForm';
import type { DtoValidator, ValidationOutcome } from './types';
import type { ErrorObject } from 'ajv/dist/2020';

const cache = new WeakMap<Constructor, DtoValidator<unknown>>();
const CONVERSION = { enableImplicitConversion: true };
const TOO_DEEP = 'arguments are nested too deeply';

/**
 * The validator of a DTO class, compiled once. It checks the plain arguments against the DTO's
 * JSON Schema, converts them into a DTO instance with class-transformer (nested DTOs and Dates
 * included; free-form values pass through untouched), and runs class-validator only for
 * constraints the schema cannot express — then, and only then, the result is a Promise.
 */
export function compileDtoValidator<T>(dto: Constructor<T>): DtoValidator<T> {
  let validator = cache.get(dto) as DtoValidator<T> | undefined;
  if (!validator) {
    // The schema is built now, so declaration mistakes surface at start-up; ajv compiles on
    // the first call, which keeps start-up fast.
    noteSchema(describeDto(dto).schema, true);
    let compiled: DtoValidator<T> | undefined;
    validator = { validate: (args) => (compiled ??= createValidator(dto)).validate(args) };
    cache.set(dto, validator);
  }
  return validator;
}

function createValidator<T>(dto: Constructor<T>): DtoValidator<T> {
  // Loaded with the first validator, like ajv: a server that is only started pays for neither.
  const { plainToInstance } = require('class-transformer') as Pick<typeof import('class-transformer'), 'plainToInstance'>;
  const { schema, needsClassValidator } = describeDto(dto);
  const check = compiledSchema(schema);
  const lift = freeFormLifter(dto, schema);
  const flat = !lift && isFlatDto(dto, schema);

  /** Top-level properties the schema found at fault: class-validator has nothing to add about them. */
  let faulted: Set<string> | undefined;
  const convert = (args: unknown): ValidationOutcome<T> => {
    const plain = args === undefined ? {} : args;
    if (!check(plain)) {
      const errors = check.errors ?? [];
      if (needsClassValidator) faulted = new Set(errors.map(topProperty));
      return { ok: false, errors: formatAjvErrors(errors) };
    }
    if (flat) return { ok: true, value: Object.assign(new dto() as object, plain) as T };
    if (!lift) return { ok: true, value: plainToInstance(dto, plain, CONVERSION) as T };
    const lifted = lift(plain as object);
    const value = plainToInstance(dto, lifted.plain, CONVERSION) as T & object;
    lifted.restore(value);
    return { ok: true, value };
  };

  // Recursive DTOs are checked and converted recursively: absurdly deep input is the caller's error.
  const toInstance = (args: unknown): ValidationOutcome<T> => {
    try {
      return convert(args);
    } catch (error) {
      if (error instanceof RangeError) return { ok: false, errors: [TOO_DEEP] };
      throw error;
    }
  };

  if (!needsClassValidator) return { validate: toInstance };

  /**
   * The schema failed: what class-validator finds in the other properties joins the answer, so
   * one call reports every problem (a URL without its domain beside a list with a bad item).
   */
  const withConstraints = (args: unknown, schemaErrors: string[]): ValidationOutcome<T> | Promise<ValidationOutcome<T>> => {
    const skip = faulted ?? new Set<string>();
    let instance: object;
    try {
      instance = plainToInstance(dto, (args === undefined ? {} : args) as object, CONVERSION) as object;
    } catch {
      return { ok: false, errors: schemaErrors };
    }
    if (typeof instance !== 'object' || instance === null || Array.isArray(instance)) return { ok: false, errors: schemaErrors };
    // The arguments are refused already: a check that throws on what the schema refused
    // (validator.js's isEmail on a lone surrogate, synchronously) leaves the schema's answer standing.
    const schemaOnly = { ok: false as const, errors: schemaErrors };
    let checked: Promise<ValidationError[]>;
    try {
      checked = validate(instance, { forbidUnknownValues: false });
    } catch {
      return schemaOnly;
    }
    return checked.then(
      (errors) => ({
        ok: false as const,
        errors: mergeMessages(schemaErrors, formatClassValidatorErrors(errors.filter((error) => !skip.has(error.property)))),
      }),
      () => schemaOnly,
    );
  };

  return {
    validate(args) {
      const converted = toInstance(args);
      if (!converted.ok) return converted.errors[0] === TOO_DEEP ? converted : withConstraints(args, converted.errors);
      let checked: Promise<ValidationError[]>;
      try {
        checked = validate(converted.value as object, { forbidUnknownValues: false });
      } catch (error) {
        return couldNotCheck(error);
      }
      return checked.then(
        (errors): ValidationOutcome<T> =>
          errors.length ? { ok: false, errors: formatClassValidatorErrors(errors) } : converted,
        couldNotCheck,
      );
    },
  };
}

/**
 * A class-validator check that throws instead of answering (validator.js on some values, e.g.
 * `@IsNumber({ maxDecimalPlaces })` on 1e-7) refuses the arguments: what could not be checked is
 * never accepted, and the caller hears why rather than of an internal error.
 */
function couldNotCheck(error: unknown): { ok: false; errors: string[] } {
  const reason = error instanceof Error ? error.message : String(error);
  return { ok: false, errors: [`the arguments could not be checked: ${reason.slice(0, 200)}`] };
}

/** The top-level property a schema error is about (`""` for the arguments object as a whole). */
function topProperty(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  if (error.instancePath === '') {
    if (error.keyword === 'required') return String(params.missingProperty);
    if (error.keyword === 'additionalProperties') return String(params.additionalProperty);
    return '';
  }
  const end = error.instancePath.indexOf('/', 1);
  const segment = error.instancePath.slice(1, end === -1 ? undefined : end);
  return segment.includes('~') ? segment.replaceAll('~1', '/').replaceAll('~0', '~') : segment;
}
