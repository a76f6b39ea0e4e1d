import { InvalidParamsError } from '../errors';
import { isTerminal } from './TaskStore';
import type { TaskRecord, TaskStore } from './TaskStore';

interface Entry {
  json: string;
  owner: string;
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
    this.entries.set(task.taskId, { json: JSON.stringify(task), owner: task.owner, expiresAt: base + task.ttlMs, seq: this.seq++ });
  }

  async get(taskId: string): Promise<TaskRecord | undefined> {
    const entry = this.live(taskId);
    return entry && (JSON.parse(entry.json) as TaskRecord);
  }

  async update(taskId: string, changes: Partial<TaskRecord>): Promise<TaskRecord | undefined> {
    const entry = this.live(taskId);
    if (!entry) return undefined;
    const task = JSON.parse(entry.json) as TaskRecord;
    if (isTerminal(task.status)) return task;
    const next = { ...task, ...changes, taskId: task.taskId, owner: task.owner, createdAt: task.createdAt, ttlMs: task.ttlMs };
    entry.json = JSON.stringify(next);
    return JSON.parse(entry.json) as TaskRecord;
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
      tasks.push(JSON.parse(entry.json) as TaskRecord);
      last = entry.seq;
    }
    return more ? { tasks, nextCursor: String(last) } : { tasks };
  }

  async renew(runner: string, taskIds: string[], leaseUntil: number): Promise<void> {
    for (const taskId of taskIds) {
      const entry = this.live(taskId);
      if (!entry) continue;
      const task = JSON.parse(entry.json) as TaskRecord;
      if (task.runner !== runner || isTerminal(task.status)) continue;
      entry.json = JSON.stringify({ ...task, leaseUntil });
    }
  }

  async claimExpired(runner: string, now: number, leaseUntil: number): Promise<TaskRecord[]> {
    const claimed: TaskRecord[] = [];
    for (const [taskId, entry] of this.entries) {
      if (!this.live(taskId)) continue;
      const task = JSON.parse(entry.json) as TaskRecord;
      if (isTerminal(task.status) || task.leaseUntil >= now) continue;
      const next = { ...task, runner, leaseUntil };
      entry.json = JSON.stringify(next);
      claimed.push(next);
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
