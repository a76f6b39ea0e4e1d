/** A JSON Schema (2020-12) document or subschema, as plain JSON. */
export type JsonSchema = Record<string, unknown>;

/** What a DTO class turns into: its schema, and whether the schema says everything. */
export interface DtoDescription {
  /** `{ type: 'object', properties, required?, additionalProperties: false, $defs? }`; frozen. */
  readonly schema: JsonSchema;
  /**
   * True when the DTO (or a DTO nested in it) carries constraints the schema cannot express —
   * custom validators, `@ValidateIf`, regex flags, validator options — so class-validator must
   * run after the schema check. False means the schema alone decides validity.
   */
  readonly needsClassValidator: boolean;
}
