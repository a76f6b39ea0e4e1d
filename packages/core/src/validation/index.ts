export { compileDtoValidator } from './DtoValidator';
export { checkSchema, compileAuthoredSchema, compileSchema, lazySchemaValidator } from './ajv';
export type { SchemaValidator } from './ajv';
export type { DtoValidator, ValidationOutcome } from './types';
export { assertPrecompiled } from './precompiled';
export type { SchemaEntry } from './precompiled';
