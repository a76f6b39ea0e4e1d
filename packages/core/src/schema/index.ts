export { describeDto, schemaForDto } from './buildSchema';
export type { DtoDescription, JsonSchema } from './types';
