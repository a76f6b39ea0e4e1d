import { InvalidParamsError, MethodNotFoundError } from '../../errors';
import { isPlainObject } from '../../protocol';
import { isTerminal } from '../../tasks';
import type { TaskRecord } from '../../tasks';
import type { TaskWire } from '../EraCodec';
import { shownTask, textOf } from '../taskShape';

/**
 * Tasks as protocol 2025-11-25 defines them: the client asks for one with `task` on the
 * request; `tasks/result` waits for the result. Earlier revisions have none.
 */
export const handshakeTasks: TaskWire = {
  taskCall(params, caller, tool, serverHasTaskTools) {
    const task = params.task;
    if (!caller.revision.taskAugmentation) {
      // No tasks in this version: a `task` param is ignored, and a tool that must be a task cannot run.
      if (tool.taskSupport === 'required') {
        throw new MethodNotFoundError(`Tool "${tool.name}" runs only as a task, which protocol ${caller.revision.version} does not have; use protocol 2025-11-25 or later`);
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
      if (!serverHasTaskTools) return undefined;
      throw new MethodNotFoundError(`Tool "${tool.name}" cannot run as a task (execution.taskSupport is "forbidden"); call it without "task"`);
    }
    if (!isPlainObject(task)) throw new InvalidParamsError('Invalid "task": it must be an object, e.g. { "ttl": 60000 }');
    const ttl = task.ttl;
    if (ttl !== undefined && ttl !== null && !(typeof ttl === 'number' && Number.isInteger(ttl) && ttl > 0)) {
      throw new InvalidParamsError('Invalid "task.ttl": it must be a positive integer of milliseconds');
    }
    return { ttl: typeof ttl === 'number' ? ttl : undefined };
  },
  // The methods are the base protocol's: `tasks/get` needs no declaration.
  admit: () => undefined,
  directResults: false,
  created: (task) => ({ task: handshakeTask(task) }),
  shown: (task) => handshakeTask(task),
  async cancel(task, cancel) {
    if (isTerminal(task.status)) throw new InvalidParamsError(`Cannot cancel task: already in terminal status '${task.status}'`);
    const updated = await cancel();
    if (!updated) throw new InvalidParamsError('Failed to retrieve task: Task not found');
    if (updated.status !== 'cancelled') throw new InvalidParamsError(`Cannot cancel task: already in terminal status '${updated.status}'`);
    return handshakeTask(updated);
  },
  // A tool result with isError fails the task.
  outcome: (result) => (result.isError === true ? { status: 'failed', statusMessage: textOf(result), result } : { status: 'completed', result }),
};

/** A task as 2025-11-25 shows it (`Task`): durations as `ttl` and `pollInterval`. */
export function handshakeTask(task: TaskRecord): Record<string, unknown> {
  return shownTask(task, 'ttl', 'pollInterval');
}
