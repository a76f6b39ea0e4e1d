import type { McpError } from '../errors';
import type { Icon } from '../metadata';
import type { EraName, Principal, RequestId, Revision } from '../protocol';
import type { ClientCapabilities, RequestChannel, RequestScope, Session } from '../session';
import type { TaskOutcome, TaskRecord } from '../tasks';
import type { ModernSettings } from './modern/settings';

/** What the server says of itself, for the codecs to put on the wire as each era does. */
export interface ServerDescription {
  readonly info: {
    readonly name: string;
    readonly version: string;
    readonly title?: string;
    readonly description?: string;
    readonly websiteUrl?: string;
    readonly icons?: Icon[];
  };
  readonly instructions?: string;
  /** The server capabilities a client of this revision is told of (`extensions` apart). */
  capabilities(revision: Revision): Record<string, unknown>;
  /** `capabilities.extensions` for this revision: empty when none is advertised. */
  extensions(revision: Revision): Record<string, unknown>;
  /** How requests without a handshake are served (requestState key, caching hints). */
  readonly modern: ModernSettings;
}

/** The scope and client channel one request is served with. */
export interface Prepared {
  readonly scope: RequestScope;
  readonly channel: RequestChannel;
  /**
   * Resolves with the answer that ends the request before its handler does (2026-07-28: an
   * unanswered question to the client ends it with `input_required`); never resolves otherwise.
   */
  readonly interrupt?: Promise<object>;
  /** Settles when what the request carried is checked (2026-07-28: a signed requestState); the handler runs after, or the rejection is the answer. */
  readonly ready?: Promise<void>;
}

/**
 * Where a request arrived, as its codec sees it: the server, the channel to the client and,
 * on a connection, its handshake-era session (its own scope, with which requests of that era
 * are served as they are). A request served alone (2026-07-28 over HTTP) has no session.
 */
export interface EraSource {
  readonly server: ServerDescription;
  readonly channel: RequestChannel;
  readonly session?: Session;
  /** The session again, as the scope of the connection's own requests. */
  readonly scope?: RequestScope;
}

/** The eras a routed method exists in; every era when left out. */
export interface RouteEras {
  readonly eras?: readonly EraName[];
}

/**
 * How a request may be cached (2026-07-28 `ttlMs`, `cacheScope`): what a handler knows of its
 * result, filled in by the era from the server's defaults. Eras without caching ignore it.
 */
export interface ResultHints {
  ttlMs?: number;
  cacheScope?: 'public' | 'private';
}

/** What a task call needs to know of the caller (see TaskWire.taskCall). */
export interface TaskCaller {
  readonly clientCapabilities: ClientCapabilities;
  readonly revision: Revision;
}

/** How an era shows MCP tasks: 2025-11-25's own, or the `io.modelcontextprotocol/tasks` extension. */
export interface TaskWire {
  /**
   * Whether a `tools/call` runs as a task: its requested ttl (undefined for the default) when
   * it does, undefined when it runs as usual. Throws the era's error when the tool and the call
   * disagree (a tool that runs only as a task, a task asked of one that never does).
   */
  taskCall(
    params: Record<string, unknown>,
    caller: TaskCaller,
    tool: { readonly name: string; readonly taskSupport: 'forbidden' | 'optional' | 'required' },
    serverHasTaskTools: boolean,
  ): { ttl: number | undefined } | undefined;
  /**
   * Throws the era's error when the caller may not use the task methods (`tasks/get`, …) or
   * ask for task notifications: 2026-07-28 needs the extension declared on the request.
   */
  admit(caller: TaskCaller): void;
  /**
   * Whether a call that may become a task may still be answered with the tool's own result
   * (2026-07-28: the server decides per call); false when the client asked for a task and
   * must get one (2025-11-25).
   */
  readonly directResults: boolean;
  /** The answer to a `tools/call` that became a task. */
  created(task: TaskRecord): Record<string, unknown>;
  /** A task as `tasks/get` shows it. */
  shown(task: TaskRecord): Record<string, unknown>;
  /** `tasks/cancel` of a task found for the caller; `cancel` cancels it (undefined when it is gone). */
  cancel(task: TaskRecord, cancel: () => Promise<TaskRecord | undefined>): Promise<Record<string, unknown>>;
  /** How a task's tool result ends the task. */
  outcome(result: Record<string, unknown>): TaskOutcome;
}

/**
 * How one protocol era carries requests (docs/architecture.md, `eras/`). For every request the
 * runtime asks the era its params name (`codecOf`) whether it may be served, for its scope
 * (revision, client info and capabilities, log level) and the channel on which progress,
 * logs, sampling, elicitation and roots reach the client, and how its result or error goes
 * out. Features return era-neutral results and throw era-neutral errors: only the codecs know
 * the eras.
 */
export interface EraCodec {
  readonly name: EraName;
  /**
   * The error that answers `method` before any handler runs, or undefined when it may be
   * served. `route` is the method's route (undefined: none); a route of other eras only is
   * refused here.
   */
  refusal(source: EraSource, method: string, params: Record<string, unknown>, route: RouteEras | undefined): McpError | undefined;
  /** The version a request speaks, when known before it is served (for observers). */
  versionOf(source: EraSource, params: Record<string, unknown>): string | undefined;
  /** The request's scope and channel; throws an McpError (sent as the answer) for bad round params. */
  prepare(source: EraSource, method: string, params: Record<string, unknown>, id: RequestId, principal: Principal | undefined): Prepared;
  /** A handler's result as this era sends it. */
  complete(source: EraSource, method: string, result: Record<string, unknown>, hints: ResultHints | undefined): Record<string, unknown>;
  /**
   * The protocol error this era answers a thrown value with; undefined when the value is no
   * protocol error here (an unexpected failure, answered -32603 without its details).
   */
  error(thrown: unknown): McpError | undefined;
  /**
   * What the server says of itself to a client of this revision: the `initialize` result
   * (handshake) or the `server/discover` result (2026-07-28).
   */
  describe(server: ServerDescription, revision: Revision): Record<string, unknown>;
  readonly tasks: TaskWire;
}
