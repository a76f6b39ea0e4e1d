/** The states of a task; `completed`, `failed` and `cancelled` are terminal. */
export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** The terminal states: a task in one of them never changes again. */
export const TERMINAL_STATUSES: readonly TaskStatus[] = ['completed', 'failed', 'cancelled'];

/** True when `status` is terminal (`completed`, `failed` or `cancelled`). */
export function isTerminal(status: TaskStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

/** A question a task asks its client: a server-to-client request (`elicitation/create`, `sampling/createMessage`, `roots/list`). */
export interface TaskInputRequest {
  method: string;
  params?: Record<string, unknown>;
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
  /**
   * Every question the task asked its client, by key. Those without an answer in
   * `inputResponses` are outstanding: the task is `input_required` while there is one.
   */
  inputRequests?: Record<string, TaskInputRequest>;
  /** The client's answers, by the key of the question each answers. */
  inputResponses?: Record<string, Record<string, unknown>>;
}

/** The keys of the questions of `task` that have no answer yet. */
export function outstandingKeys(task: Pick<TaskRecord, 'inputRequests' | 'inputResponses'>): string[] {
  const asked = task.inputRequests;
  if (!asked) return [];
  const answered = task.inputResponses ?? {};
  return Object.keys(asked).filter((key) => !Object.hasOwn(answered, key));
}

/**
 * Keeps tasks where every replica of a server can read them. Implement it over a shared
 * store (Redis, a database) to run tasks in a cluster; a server alone uses an InMemoryTaskStore.
 */
export interface TaskStore {
  /**
   * Stores a new task; it expires `ttlMs` after creation. With `maxActive`, atomically refuses
   * it (resolves false, storing nothing) when its owner already has that many tasks that are
   * not terminal; resolves true when stored.
   */
  create(task: TaskRecord, maxActive?: number): Promise<boolean>;
  get(taskId: string): Promise<TaskRecord | undefined>;
  /** Applies changes unless the task is already terminal; returns the stored task after, undefined when gone. */
  update(taskId: string, changes: Partial<TaskRecord>): Promise<TaskRecord | undefined>;
  /**
   * Records questions of a task to its client, atomically: each key not asked before is added
   * to `inputRequests` (a key asked before keeps its question), and the task becomes
   * `input_required` while one is outstanding. A terminal task is left as it is. Returns the
   * stored task after, undefined when gone.
   */
  ask(taskId: string, requests: Record<string, TaskInputRequest>, lastUpdatedAt: string): Promise<TaskRecord | undefined>;
  /**
   * Records the client's answers, atomically: an answer is kept only for a key that was asked
   * and not answered yet (others are ignored, as the extension asks); once no question is
   * outstanding, an `input_required` task is `working` again. A terminal task is left as it is.
   * Returns the stored task after, undefined when gone.
   */
  answer(taskId: string, responses: Record<string, Record<string, unknown>>, lastUpdatedAt: string): Promise<TaskRecord | undefined>;
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
