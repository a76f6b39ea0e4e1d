import type { Broadcaster, ClusterMessage } from '../cluster/Broadcaster';
import { DefinitionError, InvalidRequestError } from '../errors';
import { InMemoryTaskStore } from './InMemoryTaskStore';
import { isTerminal, outstandingKeys } from '../cluster/TaskStore';
import type { TaskInputRequest, TaskRecord, TaskStatus, TaskStore } from '../cluster/TaskStore';
import { unrefTimer } from '../platform';

/** How a server keeps and runs tasks (`McpServer` option `tasks`). */
export interface TaskOptions {
  /** Where tasks are kept; a cluster's `tasks` store, else an InMemoryTaskStore. */
  store?: TaskStore;
  /** The `pollInterval` suggested to clients, and how often a waiting `tasks/result` re-reads the store; default 1000 ms. */
  pollIntervalMs?: number;
  /** How long a task is kept when the client asks for no `ttl`; default 1 hour. */
  defaultTtlMs?: number;
  /** The longest `ttl` granted; longer requests are cut to it. Default 24 hours. */
  maxTtlMs?: number;
  /** How long a replica holds a task it runs without renewing; default 10 000 ms. */
  leaseMs?: number;
  /** How often a replica renews its leases and claims the tasks of replicas that stopped; default 3000 ms. */
  renewIntervalMs?: number;
  /**
   * How many tasks one caller may have that are not terminal (working or waiting for input);
   * a call that would create one more is refused with -32600. The caller is the principal,
   * else the handshake-era session, else every anonymous 2026-07-28 caller together. Default 100.
   */
  maxActivePerCaller?: number;
}

/** How a task ended, as the executor reports it. */
export interface TaskOutcome {
  status: Extract<TaskStatus, 'completed' | 'failed'>;
  statusMessage?: string;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

/** Runs a task's request on this replica; resolves with how it ended (never rejects). */
export type TaskExecutor = (task: TaskRecord, signal: AbortSignal) => Promise<TaskOutcome>;

/** What the runner tells the feature of status changes (for `notifications/tasks/status`). */
export interface TaskStatusListener {
  /** True when this replica serves the session the task belongs to; only then `changed` gets the task. */
  wants(session: string | undefined): boolean;
  /** The task's status changed (its questions alone changing is not told). */
  changed(task: TaskRecord): void;
}

/** Hears every change of one task (status, questions, answers): see `TaskRunner.watch`. */
export type TaskWatcher = (task: TaskRecord) => void;

/** What the cluster gives the task runtime: see `TaskRunner.attachCluster`. */
export interface TaskClusterAttachment {
  broadcaster?: Broadcaster;
  /** The replica's name, or where to ask for it once needed (a random one is made on first use). */
  replicaId?: string | (() => string);
  store?: TaskStore;
}

/** The topic task status changes travel on between replicas. */
export const TASKS_TOPIC = 'tasks';

/** The message that fails a task whose replica stopped and whose tool is not idempotent. */
export const NOT_RERUN_MESSAGE =
  'The server replica running this task stopped before it finished; the tool is not marked idempotent (annotations.idempotentHint), so it was not run again';

/** Why a run stops when its replica no longer holds the task (another replica took it over, or it ended there). */
export const LEASE_LOST_MESSAGE = 'This server replica lost its lease on the task (it missed its renewals); another replica took the task over';

interface StatusMessage extends ClusterMessage {
  from: string;
  taskId: string;
  status: TaskStatus;
  /** False when only the task's questions or answers changed. */
  statusChanged?: boolean;
  session?: string;
}

const DEFAULTS = {
  pollIntervalMs: 1000,
  defaultTtlMs: 60 * 60_000,
  maxTtlMs: 24 * 60 * 60_000,
  leaseMs: 10_000,
  renewIntervalMs: 3000,
  maxActivePerCaller: 100,
};

/**
 * The task runtime of one server (one replica): creates tasks in the store, runs them in the
 * background, renews the leases of the tasks it runs, claims those of replicas that stopped,
 * and tells waiters (here, and through the broadcaster on other replicas) of status changes.
 * Nothing runs until the first task tool appears (`start`): a server without one pays nothing.
 */
export class TaskRunner {
  readonly settings: Required<Omit<TaskOptions, 'store'>>;
  private storeValue: TaskStore | undefined;
  private broadcaster: Broadcaster | undefined;
  /** Made when first needed: a constructor must not ask for random values (Workers). */
  private replicaName: string | (() => string) | undefined;
  private executor: TaskExecutor | undefined;
  private listener: TaskStatusListener | undefined;
  /** The tasks this replica runs, by id. */
  private readonly running = new Map<string, AbortController>();
  private readonly waiters = new Map<string, Set<() => void>>();
  private readonly watchers = new Map<string, Set<TaskWatcher>>();
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: Promise<() => Promise<void>> | undefined;
  private started = false;
  private closed = false;
  private ticking = false;

  constructor(
    options: TaskOptions = {},
    private readonly reportError: (what: string, error: unknown) => void = () => undefined,
  ) {
    this.storeValue = options.store;
    this.settings = {
      pollIntervalMs: positive(options.pollIntervalMs, DEFAULTS.pollIntervalMs, 'pollIntervalMs'),
      defaultTtlMs: positive(options.defaultTtlMs, DEFAULTS.defaultTtlMs, 'defaultTtlMs'),
      maxTtlMs: positive(options.maxTtlMs, DEFAULTS.maxTtlMs, 'maxTtlMs'),
      leaseMs: positive(options.leaseMs, DEFAULTS.leaseMs, 'leaseMs'),
      renewIntervalMs: positive(options.renewIntervalMs, DEFAULTS.renewIntervalMs, 'renewIntervalMs'),
      maxActivePerCaller: positive(options.maxActivePerCaller, DEFAULTS.maxActivePerCaller, 'maxActivePerCaller', 'a positive integer'),
    };
  }

  /** The store: the one given, else an InMemoryTaskStore made on first use. */
  get store(): TaskStore {
    return (this.storeValue ??= new InMemoryTaskStore());
  }

  /** This replica's name, recorded as the runner of the tasks it runs. */
  get replicaId(): string {
    return this.replica;
  }

  private get replica(): string {
    if (typeof this.replicaName === 'function') this.replicaName = this.replicaName();
    return (this.replicaName ??= `replica-${crypto.randomUUID()}`) as string;
  }

  /**
   * @internal The hook for the cluster: makes this runtime one replica of a cluster. Tasks are
   * kept in `store` (shared by the replicas), status changes are published on `broadcaster`
   * (topic `tasks`) so waiters and runners on other replicas react at once, and `replicaId`
   * names this replica as the runner of its tasks. Call before the server serves.
   */
  attachCluster({ broadcaster, replicaId, store }: TaskClusterAttachment): void {
    if (store) this.storeValue = store;
    if (replicaId) this.replicaName = replicaId;
    if (broadcaster && broadcaster !== this.broadcaster) {
      this.dropSubscription();
      this.broadcaster = broadcaster;
      if (this.started && !this.closed) this.subscribe();
    }
  }

  /** @internal Who runs the tasks' requests, and who hears of their status changes. */
  bind(executor: TaskExecutor, listener?: TaskStatusListener): void {
    this.executor = executor;
    this.listener = listener;
  }

  /** Starts the lease timer (unref'd) and the broadcaster subscription; idempotent. */
  start(): void {
    if (this.started || this.closed) return;
    this.started = true;
    this.timer = setInterval(() => void this.tick(), this.settings.renewIntervalMs);
    unrefTimer(this.timer);
    if (this.broadcaster) this.subscribe();
  }

  /** The ttl granted for a requested one: the default when none, cut to the maximum. */
  ttlFor(requested: number | undefined): number {
    return Math.min(requested ?? this.settings.defaultTtlMs, this.settings.maxTtlMs);
  }

  /**
   * Stores a new task and starts running it here (with `execute`, else the bound executor);
   * resolves once it is stored, so `tasks/get` finds it. Refuses it with -32600 when its owner
   * already has `maxActivePerCaller` tasks that are not terminal.
   */
  async create(task: TaskRecord, execute?: TaskExecutor): Promise<TaskRecord> {
    this.start();
    const limit = this.settings.maxActivePerCaller;
    if (!(await this.store.create(task, limit))) {
      throw new InvalidRequestError(`Too many tasks in progress for this caller (at most ${limit}); wait for one to end, or cancel one with tasks/cancel`);
    }
    this.run(task, execute);
    return task;
  }

  /**
   * Asks the client `request` under `key` for a task this replica runs: records the question
   * (the task is `input_required` until it is answered), then resolves with the answer once
   * `answer` recorded it, here or on another replica. Rejects when the task ends first or
   * `signal` aborts.
   */
  async ask(taskId: string, key: string, request: TaskInputRequest, signal: AbortSignal): Promise<Record<string, unknown>> {
    signal.throwIfAborted();
    let task = await this.store.ask(taskId, { [key]: request }, new Date().toISOString());
    // The only outstanding question is this one: the task was working until now.
    if (task && !isTerminal(task.status)) await this.changed(task, outstandingKeys(task).length === 1);
    // An answer wakes the run at once (here, or announced by the replica that got it); the
    // re-reads only catch a lost announcement, so they slow down while the client takes its time.
    let fallbackMs = this.settings.pollIntervalMs;
    for (;;) {
      if (!task) throw new Error('The task is gone (its time to live ran out)');
      if (task.inputResponses && Object.hasOwn(task.inputResponses, key)) return task.inputResponses[key];
      if (isTerminal(task.status)) throw signal.aborted ? signal.reason : new Error(`The task is ${task.status}`);
      await this.nextChange(taskId, signal, fallbackMs);
      fallbackMs = Math.min(fallbackMs * 2, Math.max(MAX_QUESTION_POLL_MS, this.settings.pollIntervalMs));
      task = await this.store.get(taskId);
    }
  }

  /** Records the client's answers to a task's questions (those not outstanding are ignored) and wakes its run wherever it is. */
  async answer(task: TaskRecord, responses: Record<string, Record<string, unknown>>): Promise<TaskRecord | undefined> {
    const updated = await this.store.answer(task.taskId, responses, new Date().toISOString());
    if (updated && updated.lastUpdatedAt !== task.lastUpdatedAt && !isTerminal(updated.status)) await this.changed(updated, updated.status !== task.status);
    return updated;
  }

  /**
   * Calls `watcher` with the task at each of its changes heard here: made on this replica, or
   * announced by another through the broadcaster. Returns the function that stops it.
   */
  watch(taskId: string, watcher: TaskWatcher): () => void {
    this.start();
    let watchers = this.watchers.get(taskId);
    if (!watchers) this.watchers.set(taskId, (watchers = new Set()));
    watchers.add(watcher);
    return () => {
      watchers.delete(watcher);
      if (watchers.size === 0 && this.watchers.get(taskId) === watchers) this.watchers.delete(taskId);
    };
  }

  /** Resolves at the task's next change heard here, or after one poll interval; rejects when `signal` aborts. */
  changeOf(taskId: string, signal: AbortSignal): Promise<void> {
    return this.nextChange(taskId, signal);
  }

  /** A fresh record for a new task run by this replica. */
  newRecord(fields: Pick<TaskRecord, 'owner' | 'request' | 'rerunnable' | 'ttlMs'>): TaskRecord {
    const now = new Date().toISOString();
    return {
      taskId: crypto.randomUUID(),
      status: 'working',
      createdAt: now,
      lastUpdatedAt: now,
      pollIntervalMs: this.settings.pollIntervalMs,
      runner: this.replica,
      leaseUntil: Date.now() + this.settings.leaseMs,
      ...fields,
    };
  }

  /** Cancels a task that is not terminal: stores `cancelled`, then aborts its run wherever it is. */
  async cancel(task: TaskRecord, statusMessage: string): Promise<TaskRecord | undefined> {
    const updated = await this.store.update(task.taskId, { status: 'cancelled', statusMessage, lastUpdatedAt: new Date().toISOString(), ...NO_QUESTIONS });
    if (updated?.status === 'cancelled') {
      this.abortLocal(updated.taskId, new Error(statusMessage));
      await this.changed(updated);
    }
    return updated;
  }

  /** Stops timers, the subscription and this replica's runs (their tasks stay for another replica to claim). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    for (const controller of this.running.values()) controller.abort(new Error('The server closed'));
    this.running.clear();
    for (const wakers of this.waiters.values()) for (const wake of wakers) wake();
    this.watchers.clear();
    const unsubscribe = this.unsubscribe;
    this.unsubscribe = undefined;
    if (unsubscribe) await unsubscribe.then((stop) => stop()).catch((error) => this.reportError('tasks: unsubscribing failed', error));
  }

  /** @internal The ids of the tasks this replica runs now (for tests and diagnostics). */
  get runningTaskIds(): string[] {
    return [...this.running.keys()];
  }

  private run(task: TaskRecord, executor = this.executor): void {
    if (!executor || this.closed) return;
    const controller = new AbortController();
    this.running.set(task.taskId, controller);
    let outcome: Promise<TaskOutcome>;
    try {
      outcome = executor(task, controller.signal);
    } catch (error) {
      outcome = Promise.reject(error);
    }
    outcome
      .catch((error: unknown): TaskOutcome => {
        this.reportError(`task ${task.taskId} failed`, error);
        return { status: 'failed', statusMessage: 'Internal error', error: { code: -32603, message: 'Internal error' } };
      })
      .then((ended) => this.finish(task.taskId, controller, ended))
      .catch((error) => this.reportError(`task ${task.taskId}: storing its outcome failed`, error));
  }

  private async finish(taskId: string, controller: AbortController, outcome: TaskOutcome): Promise<void> {
    if (this.running.get(taskId) === controller) this.running.delete(taskId);
    // Cancelled: the store says so already. Closed: the task is left for another replica.
    if (controller.signal.aborted || this.closed) return;
    const current = await this.store.get(taskId);
    // Another replica claimed it meanwhile (this one missed its renewals): its run counts.
    if (!current || current.runner !== this.replica || isTerminal(current.status)) return;
    // The questions and answers may hold what users typed: not kept past the end.
    const changes: Partial<TaskRecord> = { status: outcome.status, lastUpdatedAt: new Date().toISOString(), ...NO_QUESTIONS };
    if (outcome.statusMessage !== undefined) changes.statusMessage = outcome.statusMessage;
    if (outcome.result !== undefined) changes.result = outcome.result;
    if (outcome.error !== undefined) changes.error = outcome.error;
    const updated = await this.store.update(taskId, changes);
    if (updated?.status === outcome.status) await this.changed(updated);
  }

  /** Renews this replica's leases, then claims the tasks whose replicas stopped renewing theirs. */
  private async tick(): Promise<void> {
    if (this.ticking || this.closed) return;
    this.ticking = true;
    try {
      const now = Date.now();
      const leaseUntil = now + this.settings.leaseMs;
      if (this.running.size > 0) {
        const runs = [...this.running];
        const held = new Set(await this.store.renew(this.replica, runs.map(([taskId]) => taskId), leaseUntil));
        // Not held any more: another replica claimed it while this one missed its renewals (its
        // run counts now), or it ended or expired. Either way this run must stop.
        for (const [taskId, controller] of runs) if (!held.has(taskId)) this.abortLocal(taskId, new Error(LEASE_LOST_MESSAGE), controller);
      }
      if (this.closed) return;
      const claimed = await this.store.claimExpired(this.replica, now, leaseUntil);
      for (const task of claimed) {
        if (this.closed) return;
        if (task.rerunnable && this.executor) {
          this.run(task);
          continue;
        }
        const failed = await this.store.update(task.taskId, {
          status: 'failed',
          statusMessage: NOT_RERUN_MESSAGE,
          error: { code: -32603, message: NOT_RERUN_MESSAGE },
          lastUpdatedAt: new Date().toISOString(),
          ...NO_QUESTIONS,
        });
        if (failed?.status === 'failed') await this.changed(failed);
      }
    } catch (error) {
      this.reportError('tasks: renewing or claiming leases failed', error);
    } finally {
      this.ticking = false;
    }
  }

  /** A task changed here: wake local waiters, tell watchers and the session, publish to the other replicas. */
  private async changed(task: TaskRecord, statusChanged = true): Promise<void> {
    this.wake(task.taskId);
    this.tellWatchers(task);
    const session = sessionOf(task);
    if (statusChanged && this.listener?.wants(session)) this.listener.changed(task);
    if (!this.broadcaster) return;
    const message: StatusMessage = { from: this.replica, taskId: task.taskId, status: task.status };
    if (!statusChanged) message.statusChanged = false;
    if (session !== undefined) message.session = session;
    try {
      await this.broadcaster.publish(TASKS_TOPIC, message);
    } catch (error) {
      // Waiters elsewhere still see it at their next poll.
      this.reportError('tasks: publishing a status change failed', error);
    }
  }

  /** Another replica changed a task. */
  private received(message: ClusterMessage): void {
    const { from, taskId, status, session, statusChanged } = message as Partial<StatusMessage>;
    if (from === this.replica || typeof taskId !== 'string') return;
    // Terminal elsewhere (cancelled, or ended by the replica that claimed it): a run here must stop.
    if (status === 'cancelled') this.abortLocal(taskId, new Error('The task was cancelled'));
    else if (status === 'completed' || status === 'failed') this.abortLocal(taskId, new Error(LEASE_LOST_MESSAGE));
    this.wake(taskId);
    const listener = statusChanged !== false && this.listener?.wants(typeof session === 'string' ? session : undefined) ? this.listener : undefined;
    if (listener || this.watchers.has(taskId)) {
      this.store.get(taskId).then(
        (task) => {
          if (!task) return;
          listener?.changed(task);
          this.tellWatchers(task);
        },
        (error) => this.reportError('tasks: reading a changed task failed', error),
      );
    }
  }

  private tellWatchers(task: TaskRecord): void {
    const watchers = this.watchers.get(task.taskId);
    if (!watchers) return;
    for (const watcher of [...watchers]) {
      try {
        watcher(task);
      } catch (error) {
        this.reportError('tasks: a task watcher failed', error);
      }
    }
  }

  /** Aborts this replica's run of a task (only that run, when `only` is given). */
  private abortLocal(taskId: string, reason: Error, only?: AbortController): void {
    const controller = this.running.get(taskId);
    if (!controller || (only !== undefined && controller !== only)) return;
    this.running.delete(taskId);
    controller.abort(reason);
  }

  private wake(taskId: string): void {
    const wakers = this.waiters.get(taskId);
    if (!wakers) return;
    this.waiters.delete(taskId);
    for (const wake of wakers) wake();
  }

  /** Resolves at the task's next status change, or after one poll interval (a lost message only delays). */
  private nextChange(taskId: string, signal: AbortSignal, fallbackMs = this.settings.pollIntervalMs): Promise<void> {
    if (signal.aborted) return Promise.reject(signal.reason);
    if (this.closed) return Promise.reject(new Error('The server closed'));
    return new Promise<void>((resolve, reject) => {
      let wakers = this.waiters.get(taskId);
      if (!wakers) this.waiters.set(taskId, (wakers = new Set()));
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        const current = this.waiters.get(taskId);
        current?.delete(wake);
        if (current?.size === 0) this.waiters.delete(taskId);
      };
      const wake = () => {
        done();
        if (this.closed) reject(new Error('The server closed'));
        else resolve();
      };
      const onAbort = () => {
        done();
        reject(signal.reason);
      };
      const timer = setTimeout(wake, fallbackMs);
      unrefTimer(timer);
      wakers.add(wake);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  private subscribe(): void {
    const broadcaster = this.broadcaster!;
    this.unsubscribe = broadcaster.subscribe(TASKS_TOPIC, (message) => this.received(message));
    this.unsubscribe.catch((error) => this.reportError('tasks: subscribing to status changes failed', error));
  }

  private dropSubscription(): void {
    const unsubscribe = this.unsubscribe;
    this.unsubscribe = undefined;
    unsubscribe?.then((stop) => stop()).catch(() => undefined);
  }
}

/** The `_meta` key under which a task's request keeps what it needs to run again. */
export const TASK_RUN_META = 'dev.typemcp/task';

/** The handshake-era session a task was created in, if any. */
function sessionOf(task: TaskRecord): string | undefined {
  const meta = task.request.params._meta as Record<string, unknown> | undefined;
  const run = meta?.[TASK_RUN_META] as { session?: unknown } | undefined;
  return typeof run?.session === 'string' ? run.session : undefined;
}

/** The longest a run waiting for an answer goes without re-reading its task. */
const MAX_QUESTION_POLL_MS = 30_000;

/** What a task keeps of its questions once terminal: nothing. */
const NO_QUESTIONS: Pick<TaskRecord, 'inputRequests' | 'inputResponses'> = { inputRequests: undefined, inputResponses: undefined };

function positive(value: number | undefined, fallback: number, name: string, what = 'a positive integer of milliseconds'): number {
  if (value === undefined) return fallback;
  if (!(Number.isInteger(value) && value > 0)) throw new DefinitionError('INVALID_OPTION', `McpServer: tasks.${name} must be ${what}, not ${String(value)}`);
  return value;
}
