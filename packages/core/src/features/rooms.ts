import type { DependencyContainer } from 'tsyringe';
import type { EraCodec, SavedScope, TaskWire } from '../eras';
import type { Revision } from '../protocol';
import type { LoggingLevel, RequestScope, Session } from '../session';
import type { TaskRunner } from '../tasks';
import type { ChangeBroadcaster } from '../runtime/ChangeBroadcaster';
import type { Catalog } from '../items/Catalog';
import type { PromptItem } from '../items/PromptItem';
import type { ResourceItem, TemplateItem } from '../items/ResourceItem';
import type { ToolItem } from '../items/ToolItem';
import type { ClientFeatures, Context } from '../runtime/Context';
import type { Paginator } from '../runtime/Paginator';
import type { Dispatcher } from '../runtime/Dispatcher';
import type { RegisteredSkill, SkillCatalog } from '../skills';

/*
 * The server's rooms as the features see them; keeps features/ from depending on the server.
 * Each feature plugin takes only the members it uses (a Pick of these, or a view of its own).
 */

/** The catalog: the registries, their pages, the skills, and the broadcasting of their changes. */
export interface FeatureCatalog extends Catalog {
  readonly toolPages: Paginator<ToolItem>;
  readonly resourcePages: Paginator<ResourceItem>;
  readonly templatePages: Paginator<TemplateItem>;
  readonly promptPages: Paginator<PromptItem>;
  /** The skills served (Skills extension), from folders and `@Skill` methods. */
  readonly skills: SkillCatalog;
  readonly skillPages: Paginator<RegisteredSkill>;
  /** Whether some tool has a UI (MCP Apps): tool lists then depend on the client. */
  readonly appTools: boolean;
  /** Change notifications, to sessions and `subscriptions/listen` streams. */
  readonly changes: ChangeBroadcaster;
  /** Whether completions are served here or by a mounted server. */
  hasCompletions(): boolean;
}

/** The server itself: what it declares, how it routes requests, its background tasks. */
export interface FeatureServer {
  readonly debug: boolean;
  /** Routes requests through the server's middleware (a tool called through tool search). */
  readonly dispatcher: Dispatcher;
  /** The container requests resolve from, for the contexts of tasks run in the background. */
  readonly container: DependencyContainer;
  /** `ctx.sample()`, `ctx.elicit()` and `ctx.roots()`, for the contexts of tasks run in the background. */
  readonly clientFeatures: ClientFeatures;
  /** The task runtime (MCP tasks): idle until a tool supports tasks. */
  readonly tasks: TaskRunner;
  /** Reports a failure the client is not told the details of (to stderr or the server's logger). */
  reportError(what: string, error: unknown): void;
  /** The server capabilities as declared to a client of this revision. */
  capabilities(revision: Revision): Record<string, unknown>;
  /** What the server says of itself to the client of `ctx`, as its era does (`server/discover`). */
  describe(ctx: Context): Record<string, unknown>;
  /** Runs `hook` once the server serves (now, when it already does): timers and I/O wait for it (a Worker's global scope allows neither). */
  onServing(hook: () => void): void;
  /**
   * The scope and codec of a saved request (a task run in the background): its live session's
   * when this replica serves it, else as saved.
   */
  restoreScope(saved: SavedScope, session: Session | undefined): { scope: RequestScope; codec: EraCodec };
}

/** The sessions, as tasks running in the background reach their clients. */
export interface SessionConnections {
  /** The connection of a ready handshake-era session this replica serves, if any (task notifications, logs, progress). */
  sessionConnection(sessionId: string): SessionConnection | undefined;
}

/** The connection of a live handshake-era session, as tasks running in the background reach its client. */
export interface SessionConnection {
  readonly session: Session;
  /** How tasks are shown to this session's client. */
  readonly tasks: TaskWire;
  notify(method: string, params?: Record<string, unknown>, relatedRequestId?: undefined, eventKey?: string): void;
  log(scope: RequestScope, level: LoggingLevel, data: unknown, logger: string | undefined, relatedRequestId?: undefined, meta?: Record<string, unknown>): void;
}

/**
 * What the tasks of MCP need, from every room: the tools (run in the background), the task
 * runtime, the sessions their messages go to, and what a background request is served with.
 */
export type TaskHost = Pick<FeatureCatalog, 'tools'> &
  Pick<FeatureServer, 'tasks' | 'debug' | 'reportError' | 'container' | 'clientFeatures' | 'onServing' | 'restoreScope'> &
  SessionConnections;
