import { MissingClientCapabilityError } from '../../errors';
import { isPlainObject } from '../../protocol';
import { isTerminal, outstandingKeys, TASKS_EXTENSION } from '../../tasks';
import type { TaskInputRequest, TaskRecord } from '../../tasks';
import type { TaskCaller } from '../EraCodec';
import type { TaskWire } from '../EraCodec';
import { shownTask } from '../taskShape';

/**
 * Tasks as the 2026-07-28 extension `io.modelcontextprotocol/tasks` shows them: the server
 * decides per call, for clients that declare the extension; `tasks/get` carries the result.
 */
export const modernTasks: TaskWire = {
  taskCall(_params, caller, tool) {
    if (tool.taskSupport === 'forbidden') return undefined;
    if (declaresTasks(caller)) return { ttl: undefined };
    if (tool.taskSupport === 'optional') return undefined;
    throw missingExtension(`Tool "${tool.name}" runs only as a task`);
  },
  directResults: true,
  admit(caller) {
    if (!declaresTasks(caller)) throw missingExtension('The task methods and task notifications are for clients of the tasks extension');
  },
  created: (task) => ({ ...modernTask(task), resultType: 'task' }),
  shown(task) {
    const shown = modernTask(task);
    if (task.status === 'completed' && task.result) shown.result = task.result;
    if (task.status === 'failed') shown.error = task.error ?? { code: -32603, message: task.statusMessage ?? 'Internal error' };
    if (task.status === 'input_required') shown.inputRequests = outstandingQuestions(task);
    return shown;
  },
  async cancel(task, cancel) {
    // Cooperative: acknowledged whatever the status.
    if (!isTerminal(task.status)) await cancel();
    return {};
  },
  // The extension's result is what the call would have returned synchronously: a complete result, isError or not.
  outcome: (result) => ({ status: 'completed', result: { ...result, resultType: 'complete' } }),
};

function declaresTasks(caller: TaskCaller): boolean {
  const extensions = caller.clientCapabilities.extensions;
  return isPlainObject(extensions) && extensions[TASKS_EXTENSION] !== undefined;
}

function missingExtension(what: string): MissingClientCapabilityError {
  return new MissingClientCapabilityError(
    `${what}: declare the "${TASKS_EXTENSION}" extension in _meta["io.modelcontextprotocol/clientCapabilities"].extensions`,
    { extensions: { [TASKS_EXTENSION]: {} } },
  );
}

/** The questions still waiting for the client's answer, by key (`inputRequests`). */
function outstandingQuestions(task: TaskRecord): Record<string, TaskInputRequest> {
  const questions: Record<string, TaskInputRequest> = {};
  for (const key of outstandingKeys(task)) questions[key] = task.inputRequests![key];
  return questions;
}

/** A task as the extension shows it (`Task`): durations as `ttlMs` and `pollIntervalMs`. */
function modernTask(task: TaskRecord): Record<string, unknown> {
  return shownTask(task, 'ttlMs', 'pollIntervalMs');
}
