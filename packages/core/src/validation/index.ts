export { compileDtoValidator } from './DtoValidator';
export { compileSchema } from './ajv';
export type { SchemaValidator } from './ajv';
export type { DtoValidator, ValidationOutcome } from './types';
