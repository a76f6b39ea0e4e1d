import { ClientCapabilityError, InternalError, InvalidParamsError, McpError, MethodNotFoundError } from '../errors';
import { clip, featuresOf, isPlainObject } from '../protocol';
import { Context } from '../runtime/Context';
import type { ClientFeatures } from '../runtime/Context';
import type { FeatureHost, MethodHandler } from '../runtime/FeatureHost';
import type { CorePlugin } from '../runtime/plugins';
import { modernEra } from '../session/Era';
import type { RequestChannel, RequestScope } from '../session';
import { isTerminal, TASK_RUN_META } from '../tasks';
import type { TaskExecutor, TaskOutcome, TaskRecord, TaskStatusListener } from '../tasks';
import { routeAll } from './routeAll';
import { anyTaskTool, handshakeTask, handshakeTasks, modernTask, ownerOf, RELATED_TASK_META, TASKS_EXTENSION } from './tasksCall';
import type { TaskRunContext } from './tasksCall';
import { invokeTool } from './tools';

/** Tasks per `tasks/list` page. */
const TASKS_PAGE_SIZE = 100;

/**
 * `core:tasks`: MCP tasks. 2025-11-25: `tasks/get`, `tasks/result`, `tasks/list`,
 * `tasks/cancel` and the `tasks` capability; 2026-07-28 (extension `io.modelcontextprotocol/tasks`):
 * `tasks/get`, `tasks/update`, `tasks/cancel` and the extension in `server/discover`. Both only
 * while some tool supports tasks; the `tools/call` branch is in tasksCall.ts.
 */
export function tasksPlugin(host: FeatureHost): CorePlugin {
  return {
    name: 'core:tasks',
    dependencies: ['core:tools'],
    register(plugin) {
      routeAll(plugin, taskHandlers(host));
      plugin.capability('tasks', (version) =>
        handshakeTasks(version) && anyTaskTool(host) ? { list: {}, cancel: {}, requests: { tools: { call: {} } } } : undefined,
      );
      plugin.extension(TASKS_EXTENSION, (version) => (featuresOf(version).era === 'modern' && anyTaskTool(host) ? {} : undefined));
      host.tasks.bind(taskExecutor(host), statusNotifier(host));
      // Timers and the store are touched only once a tool supports tasks.
      const startWhenNeeded = () => {
        if (anyTaskTool(host)) host.tasks.start();
      };
      startWhenNeeded();
      host.tools.onChange(startWhenNeeded);
      plugin.onClose(() => host.tasks.close());
    },
  };
}

/** The task methods of both eras. */
export function taskHandlers(host: FeatureHost): Record<string, MethodHandler> {
  const { tasks } = host;

  const get: MethodHandler = async (params, ctx) => {
    const task = await lookup(host, params, ctx);
    return modern(ctx) ? detailed(task) : handshakeTask(task);
  };

  const result: MethodHandler = async (params, ctx) => {
    if (modern(ctx)) throw new MethodNotFoundError('Method not found: tasks/result (the 2026-07-28 tasks extension returns results from tasks/get)');
    const found = await lookup(host, params, ctx);
    const task = isTerminal(found.status) ? found : await tasks.waitForTerminal(found.taskId, ctx.signal);
    if (!task) throw notFound('Task has expired');
    const related = { [RELATED_TASK_META]: { taskId: task.taskId } };
    if (task.result) {
      const own = isPlainObject(task.result._meta) ? task.result._meta : {};
      return { ...task.result, _meta: { ...own, ...related } };
    }
    if (task.error) throw new McpError(task.error.code, task.error.message, task.error.data);
    throw new InvalidParamsError(`Task ${clip(task.taskId)} was ${task.status} before it produced a result`, { _meta: related });
  };

  const list: MethodHandler = async (params, ctx) => {
    if (modern(ctx)) throw new MethodNotFoundError('Method not found: tasks/list (not part of the 2026-07-28 tasks extension)');
    const owner = ownerOf(ctx);
    const cursor = params.cursor;
    if (cursor !== undefined && typeof cursor !== 'string') throw new InvalidParamsError('Invalid cursor for tasks/list: it must be a string');
    if (owner === undefined) {
      if (cursor !== undefined) throw new InvalidParamsError('Invalid cursor for tasks/list');
      return { tasks: [] };
    }
    const page = await tasks.store.list(owner, cursor, TASKS_PAGE_SIZE);
    const answer: Record<string, unknown> = { tasks: page.tasks.map(handshakeTask) };
    if (page.nextCursor !== undefined) answer.nextCursor = page.nextCursor;
    return answer;
  };

  const cancel: MethodHandler = async (params, ctx) => {
    const task = await lookup(host, params, ctx);
    if (modern(ctx)) {
      // Cooperative: acknowledged whatever the status.
      if (!isTerminal(task.status)) await tasks.cancel(task, 'The task was cancelled by request.');
      return {};
    }
    if (isTerminal(task.status)) throw new InvalidParamsError(`Cannot cancel task: already in terminal status '${task.status}'`);
    const updated = await tasks.cancel(task, 'The task was cancelled by request.');
    if (!updated) throw notFound('Task not found');
    if (updated.status !== 'cancelled') throw new InvalidParamsError(`Cannot cancel task: already in terminal status '${updated.status}'`);
    return handshakeTask(updated);
  };

  const update: MethodHandler = async (params, ctx) => {
    if (!modern(ctx)) throw new MethodNotFoundError('Method not found: tasks/update (it needs protocol 2026-07-28 and the tasks extension)');
    await lookup(host, params, ctx);
    if (params.inputResponses !== undefined && !isPlainObject(params.inputResponses)) {
      throw new InvalidParamsError('Invalid "inputResponses": it must be an object keyed by input request');
    }
    // This server never leaves a task waiting for input, so no response is outstanding: they are ignored.
    return {};
  };

  const handlers: Record<string, MethodHandler> = { 'tasks/get': get, 'tasks/result': result, 'tasks/list': list, 'tasks/cancel': cancel, 'tasks/update': update };
  // Without a tool that supports tasks the methods do not exist (as before tasks): -32601, and the store is never touched.
  for (const [method, handler] of Object.entries(handlers)) {
    handlers[method] = (params, ctx) => {
      if (!anyTaskTool(host)) throw new MethodNotFoundError(`Method not found: ${method}`);
      return handler(params, ctx);
    };
  }
  return handlers;
}

function modern(ctx: Context): boolean {
  return featuresOf(ctx.protocolVersion).era === 'modern';
}

function notFound(why: string): InvalidParamsError {
  return new InvalidParamsError(`Failed to retrieve task: ${why}`);
}

/** The caller's task named by `params.taskId`; another caller's task is "not found", like a missing one. */
async function lookup(host: FeatureHost, params: Record<string, unknown>, ctx: Context): Promise<TaskRecord> {
  if (!handshakeTasks(ctx.protocolVersion) && !modern(ctx)) {
    throw new MethodNotFoundError(`Method not found: ${ctx.method} (tasks need protocol 2025-11-25 or later)`);
  }
  const taskId = params.taskId;
  if (typeof taskId !== 'string') throw new InvalidParamsError(`${ctx.method} needs a string "taskId"`);
  const task = await host.tasks.store.get(taskId);
  if (!task || task.owner !== ownerOf(ctx)) throw notFound('Task not found');
  return task;
}

/** A task as 2026-07-28 `tasks/get` shows it: with its result or error once terminal. */
function detailed(task: TaskRecord): Record<string, unknown> {
  const shown = modernTask(task);
  if (task.status === 'completed' && task.result) shown.result = task.result;
  if (task.status === 'failed') shown.error = task.error ?? { code: -32603, message: task.statusMessage ?? 'Internal error' };
  if (task.status === 'input_required') shown.inputRequests = {};
  return shown;
}

/** `notifications/tasks/status` to the 2025-11-25 session a task belongs to, when this replica serves it. */
function statusNotifier(host: FeatureHost): TaskStatusListener {
  return {
    wants: (session) => session !== undefined && host.sessionConnection(session) !== undefined,
    changed(task) {
      const session = runOf(task).session;
      const connection = session === undefined ? undefined : host.sessionConnection(session);
      if (connection && handshakeTasks(connection.session.protocolVersion)) connection.notify('notifications/tasks/status', handshakeTask(task));
    },
  };
}

function runOf(task: TaskRecord): TaskRunContext {
  const meta = task.request.params._meta as Record<string, unknown> | undefined;
  return (meta?.[TASK_RUN_META] ?? { protocolVersion: '2025-11-25', clientCapabilities: {} }) as TaskRunContext;
}

const NOT_IN_TASKS = (what: string) =>
  Promise.reject(
    new ClientCapabilityError('tasks', `${what} is not available to a tool running as a task (tasks cannot wait for input here); ask before the call, or run the tool without a task`),
  );

/** Questions to the client cannot be asked from a task run in the background. */
const NO_CLIENT: ClientFeatures = {
  sample: () => NOT_IN_TASKS('ctx.sample()'),
  elicit: () => NOT_IN_TASKS('ctx.elicit()'),
  roots: () => NOT_IN_TASKS('ctx.roots()'),
};

/** Runs a task's `tools/call` here: a Context of its own, the tool, and the outcome as the task's era records it. */
function taskExecutor(host: FeatureHost): TaskExecutor {
  return async (task, signal) => {
    const params = task.request.params;
    const run = runOf(task);
    const isModern = featuresOf(run.protocolVersion).era === 'modern';
    const name = params.name;
    const tool = typeof name === 'string' ? host.tools.get(name) : undefined;
    if (!tool) return failure(new InvalidParamsError(`Unknown tool: ${clip(String(name))}`), isModern, host);
    const { [TASK_RUN_META]: _run, ...ownMeta } = (params._meta ?? {}) as Record<string, unknown>;
    const requestParams = { ...params, _meta: ownMeta };
    const live = run.session === undefined ? undefined : host.sessionConnection(run.session);
    const scope: RequestScope = live?.session ?? {
      protocolVersion: run.protocolVersion,
      clientCapabilities: run.clientCapabilities,
      clientInfo: run.clientInfo as RequestScope['clientInfo'],
      logLevel: undefined,
      session: undefined,
    };
    const ctx = new Context({
      requestId: task.taskId,
      method: 'tools/call',
      scope,
      container: host.container,
      channel: taskChannel(host, task.taskId, run.session),
      client: NO_CLIENT,
      progressToken: progressTokenOf(ownMeta),
      params: requestParams,
      principal: run.principal,
    });
    if (signal.aborted) ctx.cancel(signal.reason);
    else signal.addEventListener('abort', () => ctx.cancel(signal.reason), { once: true });
    try {
      const result = (await invokeTool(host, tool, params.arguments, ctx)) as Record<string, unknown>;
      // 2025-11-25: a tool result with isError fails the task; the extension calls it completed.
      if (!isModern && result.isError === true) return { status: 'failed', statusMessage: textOf(result), result };
      // The extension's result is what the call would have returned synchronously: a complete result.
      return { status: 'completed', result: isModern ? { ...result, resultType: 'complete' } : result };
    } catch (error) {
      return failure(error, isModern, host);
    } finally {
      ctx.finish();
    }
  };
}

function failure(error: unknown, isModern: boolean, host: FeatureHost): TaskOutcome {
  const mapped = isModern ? modernEra.error(error) : error;
  if (mapped instanceof McpError) return { status: 'failed', statusMessage: mapped.message, error: mapped.toJSON() };
  host.reportError('a task failed', mapped);
  const internal = new InternalError(host.debug && mapped instanceof Error ? `Internal error: ${mapped.message}` : 'Internal error');
  return { status: 'failed', statusMessage: internal.message, error: internal.toJSON() };
}

/** What a task's logs and progress travel on: its session's connection while it is here and open; else nowhere. */
function taskChannel(host: FeatureHost, taskId: string, session: string | undefined): RequestChannel {
  const related = { [RELATED_TASK_META]: { taskId } };
  const connection = () => (session === undefined ? undefined : host.sessionConnection(session));
  return {
    notify(method, params) {
      const own = isPlainObject(params._meta) ? params._meta : {};
      connection()?.notify(method, { ...params, _meta: { ...own, ...related } });
    },
    request: (method) => Promise.reject(new ClientCapabilityError('tasks', `"${method}" cannot be sent from a tool running as a task`)),
    log(scope, level, data, logger) {
      // The connection applies the level filter and the rate limit; the spec asks the related-task _meta on every notification of a task.
      connection()?.log(scope, level, data, logger, undefined, related);
    },
  };
}

function progressTokenOf(meta: Record<string, unknown>): string | number | undefined {
  const token = meta.progressToken;
  return typeof token === 'string' || typeof token === 'number' ? token : undefined;
}

function textOf(result: Record<string, unknown>): string | undefined {
  const content = Array.isArray(result.content) ? (result.content as Array<Record<string, unknown>>) : [];
  const text = content.find((block) => block?.type === 'text')?.text;
  return typeof text === 'string' ? text : undefined;
}
