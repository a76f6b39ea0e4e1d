/** A JSON Schema (2020-12) document or subschema, as plain JSON. */
export type JsonSchema = Record<string, unknown>;

/** What a DTO class turns into: its schema, and whether the schema says everything. */
export interface DtoDescription {
  /** `{ type: 'object', properties, required?, additionalProperties: false, $defs? }`; frozen. */
  readonly schema: JsonSchema;
  /**
   * True when the DTO (or a DTO nested in it) carries constraints the schema cannot express
   * exactly — custom validators, `@ValidateIf`, regex flags, string formats (`@IsEmail`,
   * `@IsUrl`, `@IsUUID`, dates), minimum lengths above 1 — so class-validator must run after
   * the schema check. False means the schema alone decides validity, and refuses everything
   * class-validator would refuse.
   */
  readonly needsClassValidator: boolean;
}
