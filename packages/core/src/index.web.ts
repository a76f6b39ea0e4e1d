/**
 * The Web entry of @typemcp/core (package.json `exports` condition `workerd`, `worker`,
 * `browser`): everything but what needs Node's modules (listen, stdio, the `(req, res)`
 * adapter, skill folders on disk), so a Worker's bundle holds none of it. index.ts, the
 * entry for Node, Bun and Deno, adds those.
 */
import 'reflect-metadata';

export { McpServer, cluster } from './server';
export type {
  McpServerOptions,
  EnvironmentVariable,
  ServerDeclaration,
  ListenOptions,
  StdioListenOptions,
  HttpListenOptions,
  ListenAddress,
  ConnectOptions,
  ListControl,
  ToolsControl,
  PromptsControl,
  ResourcesControl,
  CacheableMethod,
  MountedServer,
  IdentityUpdate,
} from './server';
export type {
  ArgumentTransform,
  MountOptions,
  MountedNames,
  RemoteAccess,
  RemoteCatalog,
  RemoteCompleter,
  RemoteItems,
  RemotePrompt,
  RemoteResource,
  RemoteTemplate,
  RemoteTool,
  RemoteToolListing,
  ToolTransform,
} from './composition';
export type { ToolSearchOptions } from './features/toolSearch';
export type { AiCatalogEntry, ServerCardInput, ServerCardOptions, ServerCardRemote } from './features/serverCard';
export { Context } from './runtime';
export type {
  Logger,
  Middleware,
  Interceptor,
  MiddlewareContext,
  InvocationTarget,
  Plugin,
  PluginHost,
  PluginRequestHandler,
  PluginNotificationHandler,
  CapabilityValue,
  ServiceKey,
  ServedItem,
  ServerObserver,
  ObservedRequest,
  ObservedConnection,
  ObservedStream,
  RequestOutcome,
} from './runtime';
export { ClusterService } from './runtime/services';
export { AuthenticationService } from './access';
export { Tool, Resource, Prompt, Completion, Skill, Description, Title, EnumTitles, UseMiddleware, McpHeader, Sensitive, Scopes, Roles, Guard, Public } from './decorators';
export type { Authentication, AuthChallenge, AuthChallengeReply, AccessGuard, GuardInput } from './access';
export type { HttpStage, HttpStageReply, HttpStageRequest, Principal } from './protocol';
export { elicitationSchemaFor } from './features/elicitationSchema';
export { metadataStore } from './metadata';
export type {
  Constructor,
  Icon,
  IconFile,
  ToolAnnotations,
  ToolOptions,
  ResourceOptions,
  ResourceAnnotations,
  ResourceListing,
  PromptOptions,
  CompletionOptions,
  SkillOptions,
  SkillContent,
  ToolUi,
  AppResourceUi,
  AppCsp,
} from './metadata';
export { APP_MIME_TYPE, APPS_EXTENSION } from './apps';
export type { SkillFolderOptions } from './skills';
export {
  ErrorCode,
  McpError,
  ParseError,
  InvalidRequestError,
  MethodNotFoundError,
  InvalidParamsError,
  InternalError,
  ConnectionClosedError,
  RequestTimeoutError,
  ToolError,
  DefinitionError,
  ClientCapabilityError,
  SamplingRuleError,
  UserRejectedError,
  RequestEndedError,
  InvalidClientResponseError,
  UnsupportedProtocolVersionError,
  MissingClientCapabilityError,
  HeaderMismatchError,
  AccessDeniedError,
  UnavailableError,
  RateLimitedError,
} from './errors';
export type { AccessDeniedReason } from './errors';
export type { ResultHints } from './eras';
export type {
  SampleResult,
  ToolLoopResult,
  SamplingMessage,
  SamplingContent,
  TextContent,
  ImageContent,
  AudioContent,
  ToolUseContent,
  ToolResultContent,
  ModelPreferences,
  ToolChoice,
  SamplingToolDescription,
  Root,
} from './runtime/samplingTypes';
export type { ElicitationResult } from './runtime/elicitationTypes';
export type { UrlElicitation, SchemaElicitation, ClientRequestOptions, SampleRequest, SamplingTool } from './runtime/Context';
export type { DefinitionErrorCode } from './errors';
export { InMemoryTransport } from './transports';
export { InMemoryEventStore, InMemorySessionStore, InMemoryBroadcaster } from './cluster';
export type { EventStore, SessionStore, SessionRecord, Broadcaster, ClusterMessage, ClusterOptions } from './cluster';
export type {
  Transport,
  TransportSendOptions,
  MessageInfo,
  HttpRequestInfo,
  FetchHandler,
  FetchHandlerOptions,
  StdioTransportOptions,
  HttpHandlerOptions,
  HttpSecurityOptions,
  NodeHttpHandler,
  Readiness,
} from './transports';
export { HANDSHAKE_VERSIONS, LATEST_HANDSHAKE_VERSION, MODERN_VERSIONS, LATEST_MODERN_VERSION, SUPPORTED_VERSIONS } from './protocol';
export type {
  RequestId,
  JsonRpcMessage,
  JsonRpcRequest,
  JsonRpcNotification,
  JsonRpcResponse,
  JsonRpcResultResponse,
  JsonRpcErrorResponse,
  JsonRpcErrorObject,
  OutgoingMessage,
} from './protocol';
export type { Session, RequestScope, ClientCapabilities, Implementation, LoggingLevel } from './session';
export type { CacheHint } from './eras';
export { schemaForDto } from './schema';
export { UriTemplate } from './uri';
export type { UriVariables } from './uri';
export type { JsonSchema } from './schema';
// MCP tasks (long-running tools): docs/reference/tasks.md
export { InMemoryTaskStore } from './tasks';
export type { TaskInputRequest, TaskRecord, TaskStatus, TaskStore, TaskOptions } from './tasks';
export type { TaskStart, TaskSupport } from './metadata';
