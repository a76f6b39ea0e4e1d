import type { TaskRecord } from '../tasks';

/** A task as the wire shows it; the eras name its durations differently (`ttl` or `ttlMs`, …). */
export function shownTask(task: TaskRecord, ttlName: string, pollName: string): Record<string, unknown> {
  const shown: Record<string, unknown> = { taskId: task.taskId, status: task.status };
  if (task.statusMessage !== undefined) shown.statusMessage = task.statusMessage;
  shown.createdAt = task.createdAt;
  shown.lastUpdatedAt = task.lastUpdatedAt;
  shown[ttlName] = task.ttlMs;
  if (task.pollIntervalMs !== undefined) shown[pollName] = task.pollIntervalMs;
  return shown;
}

/** The text of a tool result's first text block. */
export function textOf(result: Record<string, unknown>): string | undefined {
  const content = Array.isArray(result.content) ? (result.content as Array<Record<string, unknown>>) : [];
  const text = content.find((block) => block?.type === 'text')?.text;
  return typeof text === 'string' ? text : undefined;
}
