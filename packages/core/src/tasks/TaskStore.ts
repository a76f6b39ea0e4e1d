/** The states of a task; `completed`, `failed` and `cancelled` are terminal. */
export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** The terminal states: a task in one of them never changes again. */
export const TERMINAL_STATUSES: readonly TaskStatus[] = ['completed', 'failed', 'cancelled'];

/** True when `status` is terminal (`completed`, `failed` or `cancelled`). */
export function isTerminal(status: TaskStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

/**
 * A task as every replica sees it. Plain JSON, so any store can keep it.
 */
export interface TaskRecord {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601. */
  lastUpdatedAt: string;
  /** How long the task is kept after its creation. */
  ttlMs: number;
  pollIntervalMs?: number;
  /** Who may see it: the principal's subject, or the session id when there is no principal. */
  owner: string;
  /** The request the task runs, to run it again on another replica. */
  request: { method: string; params: Record<string, unknown> };
  /** True when the request may be run again after the replica running it stopped. */
  rerunnable: boolean;
  /** The replica running it. */
  runner: string;
  /** Until when (epoch ms) `runner` holds it; another replica may claim it after. */
  leaseUntil: number;
  /** The result of the request, once it ended with one. */
  result?: Record<string, unknown>;
  /** The JSON-RPC error the request ended with. */
  error?: { code: number; message: string; data?: unknown };
}

/**
 * Keeps tasks where every replica of a server can read them. Implement it over a shared
 * store (Redis, a database) to run tasks in a cluster; a server alone uses an InMemoryTaskStore.
 */
export interface TaskStore {
  /** Stores a new task; it expires `ttlMs` after creation. */
  create(task: TaskRecord): Promise<void>;
  get(taskId: string): Promise<TaskRecord | undefined>;
  /** Applies changes unless the task is already terminal; returns the stored task after, undefined when gone. */
  update(taskId: string, changes: Partial<TaskRecord>): Promise<TaskRecord | undefined>;
  /** The tasks of `owner`, oldest first, `limit` at most, from `cursor` (an opaque value this store returned as `nextCursor`). */
  list(owner: string, cursor: string | undefined, limit: number): Promise<{ tasks: TaskRecord[]; nextCursor?: string }>;
  /**
   * Extends the leases of the tasks among `taskIds` that `runner` still holds (it is their
   * runner and they are not terminal), atomically, and returns their ids. A task left out was
   * claimed by another replica (this one missed its renewals for a lease period), ended or
   * expired: the runner stops its local run of it.
   */
  renew(runner: string, taskIds: string[], leaseUntil: number): Promise<string[]>;
  /** Atomically gives `runner` every non-terminal task whose lease ended before `now`; returns them (already updated). */
  claimExpired(runner: string, now: number, leaseUntil: number): Promise<TaskRecord[]>;
}

/** The `_meta` key that ties a message to its task. */
export const RELATED_TASK_META = 'io.modelcontextprotocol/related-task';

/** The identifier of the 2026-07-28 tasks extension. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
