import { MissingClientCapabilityError } from '../../errors';
import { isPlainObject } from '../../protocol';
import { isTerminal, TASKS_EXTENSION } from '../../tasks';
import type { TaskRecord } from '../../tasks';
import type { TaskWire } from '../EraCodec';
import { shownTask } from '../taskShape';

/**
 * Tasks as the 2026-07-28 extension `io.modelcontextprotocol/tasks` shows them: the server
 * decides per call, for clients that declare the extension; `tasks/get` carries the result.
 */
export const modernTasks: TaskWire = {
  taskCall(_params, caller, tool) {
    if (tool.taskSupport === 'forbidden') return undefined;
    const extensions = caller.clientCapabilities.extensions;
    if (isPlainObject(extensions) && extensions[TASKS_EXTENSION] !== undefined) return { ttl: undefined };
    if (tool.taskSupport === 'optional') return undefined;
    throw new MissingClientCapabilityError(
      `Tool "${tool.name}" runs only as a task: declare the "${TASKS_EXTENSION}" extension in _meta["io.modelcontextprotocol/clientCapabilities"].extensions`,
      { extensions: { [TASKS_EXTENSION]: {} } },
    );
  },
  created: (task) => ({ ...modernTask(task), resultType: 'task' }),
  shown(task) {
    const shown = modernTask(task);
    if (task.status === 'completed' && task.result) shown.result = task.result;
    if (task.status === 'failed') shown.error = task.error ?? { code: -32603, message: task.statusMessage ?? 'Internal error' };
    if (task.status === 'input_required') shown.inputRequests = {};
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

/** A task as the extension shows it (`Task`): durations as `ttlMs` and `pollIntervalMs`. */
function modernTask(task: TaskRecord): Record<string, unknown> {
  return shownTask(task, 'ttlMs', 'pollIntervalMs');
}
