import type { CallToolOptions, TaskStatus } from '../types';

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/**
 * Polls a task with `get` at the server's poll interval (`pollInterval` or `pollIntervalMs`,
 * default 500 ms, at most 5 s) until it ends, or `stopAt` says to stop polling; resolves with
 * its last status.
 */
export async function waitForTask(first: TaskStatus, get: (taskId: string) => Promise<TaskStatus>, options: CallToolOptions, stopAt: (status: TaskStatus['status']) => boolean = () => false): Promise<TaskStatus> {
  let task = first;
  while (!TERMINAL.has(task.status) && !stopAt(task.status)) {
    const interval = Math.min(5000, Number(task.pollInterval ?? task.pollIntervalMs ?? 500) || 500);
    await delay(interval, options.signal);
    task = await get(first.taskId);
    options.onTask?.(task);
  }
  return task;
}

function delay(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
