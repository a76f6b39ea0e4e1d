import { ConnectionClosedError, InvalidParamsError, McpError, MethodNotFoundError, RequestTimeoutError } from '../errors';
import { clip, isPlainObject, quote } from '../protocol';
import { Context } from '../runtime/Context';
import type { MethodHandler } from '../runtime/Dispatcher';
import type { CorePlugin } from '../runtime/plugins';
import { ANSWER_ERROR_KEY, isTerminal, outstandingKeys, RELATED_TASK_META, TASK_RUN_META, TASKS_EXTENSION } from '../tasks';
import type { TaskExecutor, TaskRecord, TaskStatusListener } from '../tasks';
import type { TaskHost } from './rooms';
import { routeAll } from './routeAll';
import { failure, progressTokenOf, runOf, taskChannel } from './taskRun';
import { anyTaskTool, ownerOf } from './tasksCall';

/** Tasks per `tasks/list` page. */
const TASKS_PAGE_SIZE = 100;

/** The most task ids one `subscriptions/listen` may ask notifications of. */
const MAX_LISTENED_TASKS = 100;

/**
 * `core:tasks`: MCP tasks. 2025-11-25: `tasks/get`, `tasks/result`, `tasks/list`,
 * `tasks/cancel` and the `tasks` capability; 2026-07-28 (extension `io.modelcontextprotocol/tasks`):
 * `tasks/get`, `tasks/update`, `tasks/cancel` and the extension in `server/discover`. Both only
 * while some tool supports tasks; the `tools/call` branch is in tasksCall.ts.
 */
export function tasksPlugin(host: TaskHost): CorePlugin {
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
      // 2025-11-25 has tasks in the protocol itself (`capabilities.tasks`); the extension replaced them.
      plugin.extension(TASKS_EXTENSION, (_version, revision) => (revision.tasks && !revision.taskAugmentation && anyTaskTool(host) ? {} : undefined));
      host.tasks.bind(taskExecutor(host), statusNotifier(host));
      // Timers and the store are touched only once the server serves and a tool supports tasks.
      let serving = false;
      const startWhenNeeded = () => {
        if (serving && anyTaskTool(host)) host.tasks.start();
      };
      host.onServing(() => {
        serving = true;
        startWhenNeeded();
      });
      host.tools.onChange(startWhenNeeded);
      plugin.onClose(() => host.tasks.close());
    },
  };
}

/** The task methods of both eras. */
export function taskHandlers(host: TaskHost): Record<string, MethodHandler> {
  const { tasks } = host;
  /** `taskId key` of the questions a `tasks/result` on this replica is putting to the client now. */
  const delivering = new Set<string>();

  const get: MethodHandler = async (params, ctx) => ctx.codec.tasks.shown(await lookup(host, params, ctx));

  // 2025-11-25: waits for the end; meanwhile puts the task's questions to the client on this
  // request's stream (the client calls tasks/result when it sees input_required).
  const result: MethodHandler = async (params, ctx) => {
    let task: TaskRecord | undefined = await lookup(host, params, ctx);
    while (task && !isTerminal(task.status)) {
      for (const key of outstandingKeys(task)) {
        const id = `${task.taskId} ${key}`;
        if (delivering.has(id)) continue;
        delivering.add(id);
        void putQuestion(host, task, key, ctx).finally(() => delivering.delete(id));
      }
      await tasks.changeOf(task.taskId, ctx.signal);
      task = await tasks.store.get(task.taskId);
    }
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

  // Acknowledges at once; the task's run, wherever it is, resumes with the answers.
  const update: MethodHandler = async (params, ctx) => {
    const task = await lookup(host, params, ctx);
    const responses = answersOf(params.inputResponses);
    if (!isTerminal(task.status)) await tasks.answer(task, responses);
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

/** The `inputResponses` of a `tasks/update`, checked: an object of result objects. */
function answersOf(value: unknown): Record<string, Record<string, unknown>> {
  if (!isPlainObject(value)) throw new InvalidParamsError('tasks/update needs "inputResponses": an object of the client\'s results, keyed as the task asked');
  const answers: Record<string, Record<string, unknown>> = {};
  for (const [key, answer] of Object.entries(value)) {
    if (!isPlainObject(answer)) throw new InvalidParamsError(`inputResponses[${quote(key)}] must be a result object`);
    // The key under which a failed answer is kept is the server's own, never the client's.
    const { [ANSWER_ERROR_KEY]: _error, ...result } = answer;
    answers[key] = result;
  }
  return answers;
}

/**
 * Puts one question of a 2025-11-25 task to the client on the stream of `ctx` (a
 * `tasks/result`), with the related-task `_meta`, and records the answer or the client's
 * error. Unanswered (the request ended, timed out, or the connection closed), it stays
 * outstanding for the next `tasks/result`.
 */
async function putQuestion(host: TaskHost, task: TaskRecord, key: string, ctx: Context): Promise<void> {
  const question = task.inputRequests![key];
  const params = question.params ?? {};
  const own = isPlainObject(params._meta) ? params._meta : {};
  let answer: Record<string, unknown>;
  try {
    answer = await ctx.requestClient(question.method, { ...params, _meta: { ...own, [RELATED_TASK_META]: { taskId: task.taskId } } });
  } catch (error) {
    if (ctx.signal.aborted || error instanceof RequestTimeoutError || error instanceof ConnectionClosedError || !(error instanceof McpError)) return;
    answer = { [ANSWER_ERROR_KEY]: error.toJSON() };
  }
  try {
    await host.tasks.answer(task, { [key]: answer });
  } catch (error) {
    host.reportError(`task ${task.taskId}: recording an answer failed`, error);
  }
}

/**
 * The `taskIds` of a `subscriptions/listen` filter (2026-07-28): the caller's own tasks among
 * them get `notifications/tasks` at each change, the first at once with their current state,
 * until they end. Undefined when the filter names none; throws -32021 for a caller without the
 * extension, -32602 for a malformed list.
 */
export async function listenToTasks(
  host: Pick<TaskHost, 'tools' | 'tasks'>,
  requested: unknown,
  ctx: Context,
  notify: (task: Record<string, unknown>) => void,
): Promise<{ taskIds: string[]; start(): void; stop(): void } | undefined> {
  if (requested === undefined) return undefined;
  if (!Array.isArray(requested) || !requested.every((id) => typeof id === 'string')) {
    throw new InvalidParamsError('subscriptions/listen: "notifications.taskIds" must be an array of task ids');
  }
  if (requested.length > MAX_LISTENED_TASKS) throw new InvalidParamsError(`subscriptions/listen: at most ${MAX_LISTENED_TASKS} taskIds`);
  if (requested.length > 0) ctx.codec.tasks.admit(ctx);
  const ids = anyTaskTool(host) ? [...new Set(requested as string[])] : [];
  const owner = ownerOf(ctx);
  const found = await Promise.all(ids.map((id) => host.tasks.store.get(id)));
  const own = found.filter((task): task is TaskRecord => task !== undefined && task.owner === owner);
  const stops: Array<() => void> = [];
  const show = (task: TaskRecord) => notify(ctx.codec.tasks.shown(task));
  return {
    taskIds: own.map((task) => task.taskId),
    start() {
      for (const task of own) {
        show(task);
        if (isTerminal(task.status)) continue;
        const stop = host.tasks.watch(task.taskId, (changed) => {
          show(changed);
          if (isTerminal(changed.status)) stop();
        });
        stops.push(stop);
      }
    },
    stop: () => stops.splice(0).forEach((stop) => stop()),
  };
}

function notFound(why: string): InvalidParamsError {
  return new InvalidParamsError(`Failed to retrieve task: ${why}`);
}

/** The caller's task named by `params.taskId`; another caller's task is "not found", like a missing one. */
async function lookup(host: TaskHost, params: Record<string, unknown>, ctx: Context): Promise<TaskRecord> {
  if (!ctx.revision.tasks) throw new MethodNotFoundError(`Method not found: ${ctx.method} (tasks need protocol 2025-11-25 or later)`);
  ctx.codec.tasks.admit(ctx);
  const taskId = params.taskId;
  if (typeof taskId !== 'string') throw new InvalidParamsError(`${ctx.method} needs a string "taskId"`);
  const task = await host.tasks.store.get(taskId);
  if (!task || task.owner !== ownerOf(ctx)) throw notFound('Task not found');
  return task;
}

/** `notifications/tasks/status` to the 2025-11-25 session a task belongs to, when this replica serves it. */
function statusNotifier(host: TaskHost): TaskStatusListener {
  return {
    wants: (session) => session !== undefined && host.sessionConnection(session) !== undefined,
    changed(task) {
      const session = runOf(task).session;
      const connection = session === undefined ? undefined : host.sessionConnection(session);
      // Every replica with a copy of the session sends it: one status change is one event.
      const eventKey = `task:${task.taskId}:${task.status}:${task.lastUpdatedAt}`;
      if (connection?.session.revision.taskAugmentation) connection.notify('notifications/tasks/status', connection.tasks.shown(task), undefined, eventKey);
    },
  };
}

/** Runs a task's `tools/call` here: a Context of its own, the tool, and the outcome as the task's era records it. */
function taskExecutor(host: TaskHost): TaskExecutor {
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
      channel: taskChannel(host, task, run.session),
      client: host.clientFeatures,
      progressToken: progressTokenOf(ownMeta),
      params: requestParams,
      principal: run.principal,
      codec,
    });
    if (signal.aborted) ctx.cancel(signal.reason);
    else signal.addEventListener('abort', () => ctx.cancel(signal.reason), { once: true });
    try {
      return codec.tasks.outcome((await tool.call(params.arguments, ctx)) as Record<string, unknown>);
    } catch (error) {
      return failure(error, codec, host);
    } finally {
      ctx.finish();
    }
  };
}
