export { createTestClient } from './createTestClient';
export type { TestTarget } from './createTestClient';
export { TestClient } from './TestClient';
export { McpRequestError, SchemaViolationError } from './errors';
export {
  validateServerMessage,
  expectValidServerMessages,
  schemaFile,
  SUPPORTED_SPEC_VERSIONS,
  MODERN_SPEC_VERSION,
  ALL_SPEC_VERSIONS,
} from './schemaCheck';
export type { SpecVersion, ServerMessageOptions, RecordedServerMessage } from './schemaCheck';
export type {
  TestClientOptions,
  RequestOptions,
  ProgressUpdate,
  ClientRequestHandler,
  SamplingRequestParams,
  ElicitationRequestParams,
  ReceivedNotification,
  JsonObject,
  ListedTool,
  CallToolResult,
  ContentBlock,
  ListedResource,
  ListedResourceTemplate,
  ListedSkill,
  ResourceContents,
  ReadResourceResult,
  ListedPrompt,
  PromptMessage,
  GetPromptResult,
  CompletionReference,
  CompleteResult,
  ListenFilter,
  Subscription,
} from './types';
export { serveFetch } from './serveFetch';
export type { FetchServer } from './serveFetch';
