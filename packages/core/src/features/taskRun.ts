import { InternalError } from '../errors';
import { isPlainObject } from '../protocol';
import type { EraCodec } from '../eras';
import type { RequestChannel } from '../session';
import { RELATED_TASK_META, TASK_RUN_META, TaskQuestions } from '../tasks';
import type { TaskOutcome, TaskRecord } from '../tasks';
import type { TaskHost } from './rooms';

/** What a task's request keeps, under `_meta["dev.typemcp/task"]`, to run again with the same caller. */
export interface TaskRunContext {
  protocolVersion?: string;
  clientCapabilities: Record<string, unknown>;
  clientInfo?: Record<string, unknown>;
  /** The handshake-era session it was created in. */
  session?: string;
  principal?: { subject: string; scopes: readonly string[]; roles?: readonly string[]; claims: Readonly<Record<string, unknown>> };
}

/** The caller a task's request was made by, as saved with it. */
export function runOf(task: TaskRecord): TaskRunContext {
  const meta = task.request.params._meta as Record<string, unknown> | undefined;
  return (meta?.[TASK_RUN_META] ?? { clientCapabilities: {} }) as TaskRunContext;
}

/** How a task ends when its tool threw: the era's protocol error, else an internal error (reported, its details hidden). */
export function failure(error: unknown, codec: EraCodec, host: Pick<TaskHost, 'reportError' | 'debug'>): TaskOutcome {
  const mapped = codec.error(error);
  if (mapped) return { status: 'failed', statusMessage: mapped.message, error: mapped.toJSON() };
  host.reportError('a task failed', error);
  const internal = new InternalError(host.debug && error instanceof Error ? `Internal error: ${error.message}` : 'Internal error');
  return { status: 'failed', statusMessage: internal.message, error: internal.toJSON() };
}

/**
 * What a task's messages travel on: its questions to the client wait in the task
 * (`input_required`) until answered; its logs and progress go to its session's connection
 * while it is here and open, else nowhere.
 */
export function taskChannel(host: Pick<TaskHost, 'tasks' | 'sessionConnection'>, task: TaskRecord, session: string | undefined): RequestChannel {
  const taskId = task.taskId;
  const questions = new TaskQuestions(task, (key, request, signal) => host.tasks.ask(taskId, key, request, signal));
  const related = { [RELATED_TASK_META]: { taskId } };
  const connection = () => (session === undefined ? undefined : host.sessionConnection(session));
  return {
    notify(method, params) {
      const own = isPlainObject(params._meta) ? params._meta : {};
      connection()?.notify(method, { ...params, _meta: { ...own, ...related } });
    },
    request: (method, params, options) => questions.ask(method, params, options.signal ?? never(), options.inputKey),
    log(scope, level, data, logger) {
      // The connection applies the level filter and the rate limit; the spec asks the related-task _meta on every notification of a task.
      connection()?.log(scope, level, data, logger, undefined, related);
    },
  };
}

/** A signal that never aborts, made on first use: Workers forbid an AbortController at module scope. */
let neverSignal: AbortSignal | undefined;
function never(): AbortSignal {
  return (neverSignal ??= new AbortController().signal);
}

export function progressTokenOf(meta: Record<string, unknown>): string | number | undefined {
  const token = meta.progressToken;
  return typeof token === 'string' || typeof token === 'number' ? token : undefined;
}
