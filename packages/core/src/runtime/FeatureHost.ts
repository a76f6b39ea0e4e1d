import type { AccessPolicy } from '../access';
import type { Constructor, CompletionDefinition } from '../metadata';
import type { DependencyContainer } from 'tsyringe';
import type { LoggingLevel, RequestScope, Session } from '../session';
import type { TaskRunner } from '../tasks/TaskRunner';
import type { ChangeBroadcaster } from './ChangeBroadcaster';
import type { RegisteredPrompt } from './buildPrompt';
import type { RegisteredResource } from './buildResource';
import type { RegisteredTool } from './buildTool';
import type { Context } from './Context';
import type { InvocationTarget } from './middleware';
import type { Paginator } from './Paginator';
import type { Registry } from './Registry';

/** A JSON-RPC method implementation: params in, result object out. */
export type MethodHandler = (
  params: Record<string, unknown>,
  ctx: Context,
) => Record<string, unknown> | Promise<Record<string, unknown>>;

/** A client notification's handler: its params, and the scope of the client that sent it. */
export type NotificationHandler = (params: Record<string, unknown>, scope: RequestScope) => void | Promise<void>;

/** The connection of a live handshake-era session, as tasks running in the background reach its client. */
export interface SessionConnection {
  readonly session: Session;
  notify(method: string, params?: Record<string, unknown>): void;
  log(scope: RequestScope, level: LoggingLevel, data: unknown, logger: string | undefined, relatedRequestId?: undefined, meta?: Record<string, unknown>): void;
}

/** What feature handlers may use of the server; keeps features/ from depending on McpServer. */
export interface FeatureHost {
  readonly tools: Registry<RegisteredTool>;
  readonly resources: Registry<RegisteredResource>;
  readonly templates: Registry<RegisteredResource>;
  readonly prompts: Registry<RegisteredPrompt>;
  readonly completions: ReadonlyMap<string, CompletionDefinition & { provider: Constructor; invocation: InvocationTarget }>;
  readonly toolPages: Paginator<RegisteredTool>;
  readonly resourcePages: Paginator<RegisteredResource>;
  readonly templatePages: Paginator<RegisteredResource>;
  readonly promptPages: Paginator<RegisteredPrompt>;
  readonly debug: boolean;
  /** Who may use and see which target (`@Scopes`, `@Roles`, `@Guard`, `@Public`). */
  readonly access: AccessPolicy;
  /** Calls author code: resolves the provider and runs its `@UseMiddleware` chain around the method. */
  invoke(target: InvocationTarget, args: readonly unknown[], ctx: Context): unknown;
  /** Reports a failure the client is not told the details of (to stderr or the server's logger). */
  reportError(what: string, error: unknown): void;
  /** Change notifications, to sessions and `subscriptions/listen` streams. */
  readonly changes: ChangeBroadcaster;
  /** The server capabilities as declared to a client of `protocolVersion`. */
  capabilities(protocolVersion: string): Record<string, unknown>;
  /** `server/discover`: versions, capabilities and instructions (the server's identity rides in `_meta`). */
  discover(protocolVersion: string): Record<string, unknown>;
  /** The task runtime (MCP tasks): idle until a tool supports tasks. */
  readonly tasks: TaskRunner;
  /** The container requests resolve from, for the contexts of tasks run in the background. */
  readonly container: DependencyContainer;
  /** The connection of a ready handshake-era session this replica serves, if any (task notifications, logs, progress). */
  sessionConnection(sessionId: string): SessionConnection | undefined;
}
