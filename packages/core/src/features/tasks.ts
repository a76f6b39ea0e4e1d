import { ClientCapabilityError, InternalError, InvalidParamsError, McpError, MethodNotFoundError } from '../errors';
import { clip, isPlainObject } from '../protocol';
import { Context } from '../runtime/Context';
import type { ClientFeatures } from '../runtime/Context';
import type { MethodHandler } from '../runtime/Dispatcher';
import type { CorePlugin } from '../runtime/plugins';
import type { RequestChannel } from '../session';
import { isTerminal, RELATED_TASK_META, TASK_RUN_META, TASKS_EXTENSION } from '../tasks';
import type { TaskExecutor, TaskOutcome, TaskRecord, TaskStatusListener } from '../tasks';
import type { FeatureHost } from './FeatureHost';
import { routeAll } from './routeAll';
import { anyTaskTool, ownerOf } from './tasksCall';
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
      // 2025-11-25 waits for results with tasks/result and lists tasks; the extension carries
      // results in tasks/get and takes input with tasks/update.
      routeAll(plugin, taskHandlers(host), { 'tasks/result': ['handshake'], 'tasks/list': ['handshake'], 'tasks/update': ['modern'] });
      plugin.capability('tasks', (_version, revision) =>
        revision.taskAugmentation && anyTaskTool(host) ? { list: {}, cancel: {}, requests: { tools: { call: {} } } } : undefined,
      );
      plugin.extension(TASKS_EXTENSION, () => (anyTaskTool(host) ? {} : undefined));
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

  const get: MethodHandler = async (params, ctx) => ctx.codec.tasks.shown(await lookup(host, params, ctx));

  const result: MethodHandler = async (params, ctx) => {
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
    const owner = ownerOf(ctx);
    const cursor = params.cursor;
    if (cursor !== undefined && typeof cursor !== 'string') throw new InvalidParamsError('Invalid cursor for tasks/list: it must be a string');
    if (owner === undefined) {
      if (cursor !== undefined) throw new InvalidParamsError('Invalid cursor for tasks/list');
      return { tasks: [] };
    }
    const page = await tasks.store.list(owner, cursor, TASKS_PAGE_SIZE);
    const answer: Record<string, unknown> = { tasks: page.tasks.map((task) => ctx.codec.tasks.shown(task)) };
    if (page.nextCursor !== undefined) answer.nextCursor = page.nextCursor;
    return answer;
  };

  const cancel: MethodHandler = async (params, ctx) => {
    const task = await lookup(host, params, ctx);
    return ctx.codec.tasks.cancel(task, () => tasks.cancel(task, 'The task was cancelled by request.'));
  };

  const update: MethodHandler = async (params, ctx) => {
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

function notFound(why: string): InvalidParamsError {
  return new InvalidParamsError(`Failed to retrieve task: ${why}`);
}

/** The caller's task named by `params.taskId`; another caller's task is "not found", like a missing one. */
async function lookup(host: FeatureHost, params: Record<string, unknown>, ctx: Context): Promise<TaskRecord> {
  if (!ctx.revision.tasks) throw new MethodNotFoundError(`Method not found: ${ctx.method} (tasks need protocol 2025-11-25 or later)`);
  const taskId = params.taskId;
  if (typeof taskId !== 'string') throw new InvalidParamsError(`${ctx.method} needs a string "taskId"`);
  const task = await host.tasks.store.get(taskId);
  if (!task || task.owner !== ownerOf(ctx)) throw notFound('Task not found');
  return task;
}

/** `notifications/tasks/status` to the 2025-11-25 session a task belongs to, when this replica serves it. */
function statusNotifier(host: FeatureHost): TaskStatusListener {
  return {
    wants: (session) => session !== undefined && host.sessionConnection(session) !== undefined,
    changed(task) {
      const session = runOf(task).session;
      const connection = session === undefined ? undefined : host.sessionConnection(session);
      if (connection?.session.revision.taskAugmentation) connection.notify('notifications/tasks/status', connection.tasks.shown(task));
    },
  };
}

function runOf(task: TaskRecord): TaskRunContext {
  const meta = task.request.params._meta as Record<string, unknown> | undefined;
  return (meta?.[TASK_RUN_META] ?? { clientCapabilities: {} }) as TaskRunContext;
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
    const live = run.session === undefined ? undefined : host.sessionConnection(run.session);
    // The scope it was created with: its session while this replica serves it, else as saved.
    const { scope, codec } = host.restoreScope(run, live?.session);
    const name = params.name;
    const tool = typeof name === 'string' ? host.tools.get(name) : undefined;
    if (!tool) return failure(new InvalidParamsError(`Unknown tool: ${clip(String(name))}`), codec, host);
    const { [TASK_RUN_META]: _run, ...ownMeta } = (params._meta ?? {}) as Record<string, unknown>;
    const requestParams = { ...params, _meta: ownMeta };
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
      codec,
    });
    if (signal.aborted) ctx.cancel(signal.reason);
    else signal.addEventListener('abort', () => ctx.cancel(signal.reason), { once: true });
    try {
      return codec.tasks.outcome((await invokeTool(host, tool, params.arguments, ctx)) as Record<string, unknown>);
    } catch (error) {
      return failure(error, codec, host);
    } finally {
      ctx.finish();
    }
  };
}

function failure(error: unknown, codec: Context['codec'], host: FeatureHost): TaskOutcome {
  const mapped = codec.error(error);
  if (mapped) return { status: 'failed', statusMessage: mapped.message, error: mapped.toJSON() };
  host.reportError('a task failed', error);
  const internal = new InternalError(host.debug && error instanceof Error ? `Internal error: ${error.message}` : 'Internal error');
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
