import { InvalidParamsError } from '../errors';
import { isTerminal } from './TaskStore';
import type { TaskRecord, TaskStatus, TaskStore } from './TaskStore';

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

  async create(task: TaskRecord): Promise<void> {
    const createdAt = Date.parse(task.createdAt);
    const base = Number.isNaN(createdAt) ? Date.now() : createdAt;
    this.entries.set(task.taskId, { ...fieldsOf(task), owner: task.owner, expiresAt: base + task.ttlMs, seq: this.seq++ });
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
