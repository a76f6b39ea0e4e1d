import { InvalidParamsError } from '../errors';
import { isTerminal, outstandingKeys } from '../cluster/TaskStore';
import type { TaskInputRequest, TaskRecord, TaskStatus, TaskStore } from '../cluster/TaskStore';

interface Entry {
  /** The record's JSON; its `status`, `runner` and `leaseUntil` are the fields below (current), so renewing and claiming never parse it. */
  json: string;
  owner: string;
  status: TaskStatus;
  runner: string;
  leaseUntil: number;
  expiresAt: number;
  seq: number;
}

/**
 * A TaskStore in this process: for a server alone, several servers in one process, and tests.
 * It hands out copies, as a remote store would: replicas never share objects.
 */
export class InMemoryTaskStore implements TaskStore {
  private readonly entries = new Map<string, Entry>();
  private seq = 0;

  async create(task: TaskRecord, maxActive?: number): Promise<boolean> {
    if (maxActive !== undefined && this.activeOf(task.owner) >= maxActive) return false;
    const createdAt = Date.parse(task.createdAt);
    const base = Number.isNaN(createdAt) ? Date.now() : createdAt;
    this.entries.set(task.taskId, { ...fieldsOf(task), owner: task.owner, expiresAt: base + task.ttlMs, seq: this.seq++ });
    return true;
  }

  async get(taskId: string): Promise<TaskRecord | undefined> {
    const entry = this.live(taskId);
    return entry && recordOf(entry);
  }

  async update(taskId: string, changes: Partial<TaskRecord>): Promise<TaskRecord | undefined> {
    const entry = this.live(taskId);
    if (!entry) return undefined;
    const task = recordOf(entry);
    if (isTerminal(task.status)) return task;
    const next = { ...task, ...changes, taskId: task.taskId, owner: task.owner, createdAt: task.createdAt, ttlMs: task.ttlMs };
    Object.assign(entry, fieldsOf(next));
    return recordOf(entry);
  }

  async ask(taskId: string, requests: Record<string, TaskInputRequest>, lastUpdatedAt: string): Promise<TaskRecord | undefined> {
    const entry = this.live(taskId);
    if (!entry) return undefined;
    const task = recordOf(entry);
    if (isTerminal(task.status)) return task;
    const asked = { ...task.inputRequests };
    for (const [key, request] of Object.entries(requests)) if (!Object.hasOwn(asked, key)) asked[key] = request;
    const next: TaskRecord = { ...task, inputRequests: asked, lastUpdatedAt };
    if (outstandingKeys(next).length > 0) next.status = 'input_required';
    Object.assign(entry, fieldsOf(next));
    return recordOf(entry);
  }

  async answer(taskId: string, responses: Record<string, Record<string, unknown>>, lastUpdatedAt: string): Promise<TaskRecord | undefined> {
    const entry = this.live(taskId);
    if (!entry) return undefined;
    const task = recordOf(entry);
    if (isTerminal(task.status)) return task;
    const outstanding = new Set(outstandingKeys(task));
    const answered = Object.keys(responses).filter((key) => outstanding.has(key));
    if (answered.length === 0) return task;
    const next: TaskRecord = { ...task, inputResponses: { ...task.inputResponses }, lastUpdatedAt };
    for (const key of answered) next.inputResponses![key] = responses[key];
    if (next.status === 'input_required' && outstandingKeys(next).length === 0) next.status = 'working';
    Object.assign(entry, fieldsOf(next));
    return recordOf(entry);
  }

  async list(owner: string, cursor: string | undefined, limit: number): Promise<{ tasks: TaskRecord[]; nextCursor?: string }> {
    let after = -1;
    if (cursor !== undefined) {
      after = /^\d+$/.test(cursor) ? Number(cursor) : NaN;
      if (Number.isNaN(after)) throw new InvalidParamsError(`Invalid cursor for tasks/list: "${cursor}" was not returned by this server`);
    }
    const tasks: TaskRecord[] = [];
    let last = -1;
    let more = false;
    for (const [taskId, entry] of this.entries) {
      if (entry.owner !== owner || entry.seq <= after || !this.live(taskId)) continue;
      if (tasks.length === limit) {
        more = true;
        break;
      }
      tasks.push(recordOf(entry));
      last = entry.seq;
    }
    return more ? { tasks, nextCursor: String(last) } : { tasks };
  }

  async renew(runner: string, taskIds: string[], leaseUntil: number): Promise<string[]> {
    const held: string[] = [];
    for (const taskId of taskIds) {
      const entry = this.live(taskId);
      if (!entry || entry.runner !== runner || isTerminal(entry.status)) continue;
      entry.leaseUntil = leaseUntil;
      held.push(taskId);
    }
    return held;
  }

  async claimExpired(runner: string, now: number, leaseUntil: number): Promise<TaskRecord[]> {
    const claimed: TaskRecord[] = [];
    for (const [taskId, entry] of this.entries) {
      // No JSON is parsed here: expired, terminal and held tasks are skipped on the fields beside it.
      if (!this.live(taskId) || isTerminal(entry.status) || entry.leaseUntil >= now) continue;
      entry.runner = runner;
      entry.leaseUntil = leaseUntil;
      claimed.push(recordOf(entry));
    }
    return claimed;
  }

  /** How many of `owner`'s live tasks are not terminal. */
  private activeOf(owner: string): number {
    let active = 0;
    for (const [taskId, entry] of this.entries) if (entry.owner === owner && !isTerminal(entry.status) && this.live(taskId)) active++;
    return active;
  }

  private live(taskId: string): Entry | undefined {
    const entry = this.entries.get(taskId);
    if (!entry) return undefined;
    if (entry.expiresAt <= Date.now()) {
      this.entries.delete(taskId);
      return undefined;
    }
    return entry;
  }
}

/** What an entry keeps of a record: its JSON, and beside it the fields leases are about. */
function fieldsOf(task: TaskRecord): Pick<Entry, 'json' | 'status' | 'runner' | 'leaseUntil'> {
  return { json: JSON.stringify(task), status: task.status, runner: task.runner, leaseUntil: task.leaseUntil };
}

/** A fresh copy of the stored record; the fields kept outside the JSON are the current ones. */
function recordOf(entry: Entry): TaskRecord {
  return { ...(JSON.parse(entry.json) as TaskRecord), status: entry.status, runner: entry.runner, leaseUntil: entry.leaseUntil };
}
