export { McpRequestError } from './McpRequestError';
export { SchemaViolationError } from './SchemaViolationError';
