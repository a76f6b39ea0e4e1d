import { InvalidParamsError, InvalidRequestError, MethodNotFoundError, MissingClientCapabilityError } from '../errors';
import { featuresOf, isPlainObject } from '../protocol';
import type { Context } from '../runtime/Context';
import type { RegisteredTool } from '../runtime/buildTool';
import type { FeatureHost } from '../runtime/FeatureHost';
import { TASK_RUN_META } from '../tasks/TaskRunner';
import type { TaskRecord } from '../tasks/TaskStore';

/** The `_meta` key that ties a message to its task (2025-11-25). */
export const RELATED_TASK_META = 'io.modelcontextprotocol/related-task';
/** The identifier of the 2026-07-28 tasks extension. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** What a task's request keeps, under `_meta["dev.typemcp/task"]`, to run again with the same caller. */
export interface TaskRunContext {
  protocolVersion: string;
  clientCapabilities: Record<string, unknown>;
  clientInfo?: Record<string, unknown>;
  /** The handshake-era session it was created in. */
  session?: string;
  principal?: { subject: string; scopes: readonly string[]; roles?: readonly string[]; claims: Readonly<Record<string, unknown>> };
}

/** True for a handshake-era version that has tasks (2025-11-25). */
export function handshakeTasks(version: string): boolean {
  const features = featuresOf(version);
  return features.era === 'handshake' && features.elicitationIds;
}

/** True when some enabled tool may run as a task. */
export function anyTaskTool(host: Pick<FeatureHost, 'tools'>): boolean {
  return host.tools.list().some((tool) => tool.taskSupport !== 'forbidden');
}

/**
 * Whose tasks the caller of `ctx` sees: its principal, else its handshake-era session;
 * `anonymous` for a 2026-07-28 request without a principal (the unguessable task id is then
 * the only key); undefined for a stateless handshake-era request without one (nothing binds it).
 */
export function ownerOf(ctx: Context): string | undefined {
  const subject = ctx.principal?.subject;
  if (subject !== undefined) return `principal:${subject}`;
  const session = ctx.session;
  if (session) return session.stateless ? undefined : `session:${session.id}`;
  return 'anonymous';
}

/**
 * The task branch of `tools/call`, for a tool with task support or a call asking for a task:
 * a promise of the CreateTaskResult when the call becomes a task, undefined when it runs as
 * usual. Throws the protocol's error when the tool and the call disagree.
 */
export function callAsTask(host: FeatureHost, tool: RegisteredTool, params: Record<string, unknown>, ctx: Context): Promise<Record<string, unknown>> | undefined {
  const version = ctx.protocolVersion;
  if (featuresOf(version).era === 'modern') {
    if (tool.taskSupport === 'forbidden') return undefined;
    const extensions = (ctx.clientCapabilities as Record<string, unknown>).extensions;
    if (isPlainObject(extensions) && extensions[TASKS_EXTENSION] !== undefined) return createTask(host, tool, params, ctx, undefined);
    if (tool.taskSupport === 'optional') return undefined;
    throw new MissingClientCapabilityError(
      `Tool "${tool.name}" runs only as a task: declare the "${TASKS_EXTENSION}" extension in _meta["io.modelcontextprotocol/clientCapabilities"].extensions`,
      { extensions: { [TASKS_EXTENSION]: {} } },
    );
  }
  const task = params.task;
  if (!handshakeTasks(version)) {
    // No tasks in this version: a `task` param is ignored, and a tool that must be a task cannot run.
    if (tool.taskSupport === 'required') {
      throw new MethodNotFoundError(`Tool "${tool.name}" runs only as a task, which protocol ${version} does not have; use protocol 2025-11-25 or later`);
    }
    return undefined;
  }
  if (task === undefined) {
    if (tool.taskSupport === 'required') {
      throw new MethodNotFoundError(`Task augmentation required for tools/call requests: tool "${tool.name}" has execution.taskSupport "required"; call it with "task": {}`);
    }
    return undefined;
  }
  if (tool.taskSupport === 'forbidden') {
    // Without the tasks capability declared, the request is processed normally (the spec's rule).
    if (!anyTaskTool(host)) return undefined;
    throw new MethodNotFoundError(`Tool "${tool.name}" cannot run as a task (execution.taskSupport is "forbidden"); call it without "task"`);
  }
  if (!isPlainObject(task)) throw new InvalidParamsError('Invalid "task": it must be an object, e.g. { "ttl": 60000 }');
  const ttl = task.ttl;
  if (ttl !== undefined && ttl !== null && !(typeof ttl === 'number' && Number.isInteger(ttl) && ttl > 0)) {
    throw new InvalidParamsError('Invalid "task.ttl": it must be a positive integer of milliseconds');
  }
  return createTask(host, tool, params, ctx, typeof ttl === 'number' ? ttl : undefined);
}

async function createTask(
  host: FeatureHost,
  tool: RegisteredTool,
  params: Record<string, unknown>,
  ctx: Context,
  ttl: number | undefined,
): Promise<Record<string, unknown>> {
  const owner = ownerOf(ctx);
  if (owner === undefined) {
    throw new InvalidRequestError('Task-augmented calls need a session or an authenticated caller: this stateless request has neither, so nobody could read the task back');
  }
  const { task: _task, _meta, ...rest } = params;
  const run: TaskRunContext = { protocolVersion: ctx.protocolVersion, clientCapabilities: { ...ctx.clientCapabilities } };
  if (ctx.clientInfo) run.clientInfo = { ...ctx.clientInfo };
  if (ctx.session) run.session = ctx.session.id;
  const principal = ctx.principal;
  if (principal) run.principal = { subject: principal.subject, scopes: principal.scopes, roles: principal.roles, claims: principal.claims };
  const meta = { ...(isPlainObject(_meta) ? _meta : {}), [TASK_RUN_META]: run };
  const record = host.tasks.newRecord({
    owner,
    request: { method: 'tools/call', params: { ...rest, _meta: meta } },
    rerunnable: tool.definition.options.annotations?.idempotentHint === true,
    ttlMs: host.tasks.ttlFor(ttl),
  });
  await host.tasks.create(record);
  return featuresOf(ctx.protocolVersion).era === 'modern' ? { ...modernTask(record), resultType: 'task' } : { task: handshakeTask(record) };
}

/** A task as 2025-11-25 shows it (`Task`): durations as `ttl` and `pollInterval`. */
export function handshakeTask(task: TaskRecord): Record<string, unknown> {
  return shownTask(task, 'ttl', 'pollInterval');
}

/** A task as the 2026-07-28 tasks extension shows it (`Task`): durations as `ttlMs` and `pollIntervalMs`. */
export function modernTask(task: TaskRecord): Record<string, unknown> {
  return shownTask(task, 'ttlMs', 'pollIntervalMs');
}

function shownTask(task: TaskRecord, ttlName: string, pollName: string): Record<string, unknown> {
  const shown: Record<string, unknown> = { taskId: task.taskId, status: task.status };
  if (task.statusMessage !== undefined) shown.statusMessage = task.statusMessage;
  shown.createdAt = task.createdAt;
  shown.lastUpdatedAt = task.lastUpdatedAt;
  shown[ttlName] = task.ttlMs;
  if (task.pollIntervalMs !== undefined) shown[pollName] = task.pollIntervalMs;
  return shown;
}
