import type { AccessPolicy } from '../access';
import type { DependencyContainer } from 'tsyringe';
import type { EraCodec, SavedScope, TaskWire } from '../eras';
import type { Revision } from '../protocol';
import type { LoggingLevel, RequestScope, Session } from '../session';
import type { TaskRunner } from '../tasks';
import type { ChangeBroadcaster } from '../runtime/ChangeBroadcaster';
import type { PromptItem } from '../items/PromptItem';
import type { ResourceItem, TemplateItem } from '../items/ResourceItem';
import type { ToolItem } from '../items/ToolItem';
import type { ClientFeatures, Context } from '../runtime/Context';
import type { InvocationTarget } from '../runtime/middleware';
import type { Paginator } from '../runtime/Paginator';
import type { Dispatcher, MethodHandler } from '../runtime/Dispatcher';
import type { Registry } from '../runtime/Registry';
import type { RegisteredSkill, SkillCatalog } from '../skills';

/** The connection of a live handshake-era session, as tasks running in the background reach its client. */
export interface SessionConnection {
  readonly session: Session;
  /** How tasks are shown to this session's client. */
  readonly tasks: TaskWire;
  notify(method: string, params?: Record<string, unknown>, relatedRequestId?: undefined, eventKey?: string): void;
  log(scope: RequestScope, level: LoggingLevel, data: unknown, logger: string | undefined, relatedRequestId?: undefined, meta?: Record<string, unknown>): void;
}

/** Tool search, as `tools/list` and `tools/call` use it (features/toolSearch.ts). */
export interface ToolSearchService {
  /** Whether `name` is one of the tools tool search adds. */
  owns(name: string): boolean;
  /** What `tools/list` shows: tool search's own tools, and the pinned ones of those the caller may see. */
  listed(visible: readonly ToolItem[]): { own: Array<Record<string, unknown>>; pinned: readonly ToolItem[] };
  /** `tools/call` of one of its own tools; `toolsCall` runs a tool it calls. */
  call(host: FeatureHost, toolsCall: MethodHandler, params: Record<string, unknown>, ctx: Context): Promise<Record<string, unknown>>;
}

/** What feature handlers may use of the server; keeps features/ from depending on the server. */
export interface FeatureHost {
  readonly tools: Registry<ToolItem>;
  readonly resources: Registry<ResourceItem>;
  readonly templates: Registry<TemplateItem>;
  readonly prompts: Registry<PromptItem>;
  /** Routes requests through the server's middleware (a tool called through tool search). */
  readonly dispatcher: Dispatcher;
  /** Tool search (`toolSearch` option), when the server has it. */
  readonly toolSearch: ToolSearchService | undefined;
  /** Whether completions are served here or by a mounted server. */
  hasCompletions(): boolean;
  readonly toolPages: Paginator<ToolItem>;
  readonly resourcePages: Paginator<ResourceItem>;
  readonly templatePages: Paginator<TemplateItem>;
  readonly promptPages: Paginator<PromptItem>;
  /** The skills served (Skills extension), from folders and `@Skill` methods. */
  readonly skills: SkillCatalog;
  readonly skillPages: Paginator<RegisteredSkill>;
  /** Whether some tool has a UI (MCP Apps): tool lists then depend on the client. */
  readonly appTools: boolean;
  readonly debug: boolean;
  /** Who may use and see which target (`@Scopes`, `@Roles`, `@Guard`, `@Public`). */
  readonly access: AccessPolicy;
  /** Calls author code: resolves the provider and runs its `@UseMiddleware` chain around the method. */
  invoke(target: InvocationTarget, args: readonly unknown[], ctx: Context): unknown;
  /** Reports a failure the client is not told the details of (to stderr or the server's logger). */
  reportError(what: string, error: unknown): void;
  /** Change notifications, to sessions and `subscriptions/listen` streams. */
  readonly changes: ChangeBroadcaster;
  /** The server capabilities as declared to a client of this revision. */
  capabilities(revision: Revision): Record<string, unknown>;
  /** What the server says of itself to the client of `ctx`, as its era does (`server/discover`). */
  describe(ctx: Context): Record<string, unknown>;
  /** The task runtime (MCP tasks): idle until a tool supports tasks. */
  readonly tasks: TaskRunner;
  /** Runs `hook` once the server serves (now, when it already does): timers and I/O wait for it (a Worker's global scope allows neither). */
  onServing(hook: () => void): void;
  /**
   * The scope and codec of a saved request (a task run in the background): its live session's
   * when this replica serves it, else as saved.
   */
  restoreScope(saved: SavedScope, session: Session | undefined): { scope: RequestScope; codec: EraCodec };
  /** `ctx.sample()`, `ctx.elicit()` and `ctx.roots()`, for the contexts of tasks run in the background. */
  readonly clientFeatures: ClientFeatures;
  /** The container requests resolve from, for the contexts of tasks run in the background. */
  readonly container: DependencyContainer;
  /** The connection of a ready handshake-era session this replica serves, if any (task notifications, logs, progress). */
  sessionConnection(sessionId: string): SessionConnection | undefined;
}
