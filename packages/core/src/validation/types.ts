/** The result of checking arguments: the typed value, or messages a model can act on. */
export type ValidationOutcome<T> = { ok: true; value: T } | { ok: false; errors: string[] };

/** Validates and converts the arguments of one DTO class. */
export interface DtoValidator<T> {
  /** Synchronous unless the DTO needs class-validator, whose checks may be asynchronous. */
  validate(args: unknown): ValidationOutcome<T> | Promise<ValidationOutcome<T>>;
}
