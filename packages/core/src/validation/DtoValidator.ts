import { validate } from 'class-validator';
import type { Constructor } from '../metadata';
import { describeDto } from '../schema';
import { compiledSchema } from './ajv';
import { formatAjvErrors, formatClassValidatorErrors } from './formatErrors';
import { isFlatDto } from './flatDto';
import { freeFormLifter } from './freeForm';
import type { DtoValidator, ValidationOutcome } from './types';

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
    describeDto(dto);
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

  const convert = (args: unknown): ValidationOutcome<T> => {
    const plain = args === undefined ? {} : args;
    if (!check(plain)) return { ok: false, errors: formatAjvErrors(check.errors ?? []) };
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

  return {
    validate(args) {
      const converted = toInstance(args);
      if (!converted.ok) return converted;
      return validate(converted.value as object, { forbidUnknownValues: false }).then(
        (errors): ValidationOutcome<T> =>
          errors.length ? { ok: false, errors: formatClassValidatorErrors(errors) } : converted,
      );
    },
  };
}
