import type { Redis } from 'ioredis';
import { UnavailableError } from '@typemcp/core';

/** How long a command may take, and how the connection is watched while Redis does not answer. */
export interface GuardOptions {
  /** A command not answered within this many ms fails, and the guard fails fast from then on. */
  commandTimeoutMs: number;
  /** While failing fast, a PING every this many ms finds out when Redis answers again. */
  probeIntervalMs: number;
  /** Told when Redis stops answering and when it answers again. */
  onChange?: (up: boolean, cause?: unknown) => void;
}

/**
 * Bounded waits on one Redis connection. Every command must answer within
 * `commandTimeoutMs`; one that does not marks Redis down, and from then on every command fails
 * at once with an UnavailableError (HTTP 503 with Retry-After for requests that need Redis to
 * be routed) instead of queueing behind a Redis that is frozen, overloaded or cut off. A PING
 * every `probeIntervalMs` brings the guard back up as soon as Redis answers. A refused
 * connection (Redis killed) fails through ioredis as before, at once, and is not a timeout.
 */
export class RedisGuard {
  private down: { since: number; cause: unknown } | undefined;
  private probe: ReturnType<typeof setInterval> | undefined;
  private closed = false;

  constructor(
    private readonly client: Redis,
    private readonly options: GuardOptions,
  ) {}

  /** True while Redis answers (as far as this replica knows). */
  get up(): boolean {
    return this.down === undefined;
  }

  /** The refusal of a command while Redis is down: nothing is sent. */
  refuse<T>(): Promise<T> {
    return Promise.reject(this.unavailable());
  }

  /** Runs one command (or pipeline) within the bound. */
  run<T>(command: () => Promise<T>): Promise<T> {
    if (this.down) return this.refuse();
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        const error = new UnavailableError(`Redis did not answer within ${this.options.commandTimeoutMs} ms`, this.retryAfterSec);
        this.markDown(error);
        reject(error);
      }, this.options.commandTimeoutMs);
      timer.unref?.();
      command().then(
        (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(error);
        },
      );
    });
  }

  /** A client whose commands all go through run(): what the stores are given. */
  wrap(): Redis {
    return guardedClient(this.client, this);
  }

  close(): void {
    this.closed = true;
    if (this.probe) clearInterval(this.probe);
    this.probe = undefined;
  }

  private get retryAfterSec(): number {
    return Math.max(1, Math.ceil(this.options.probeIntervalMs / 1000));
  }

  private unavailable(): UnavailableError {
    return new UnavailableError(`Redis has not answered since ${new Date(this.down!.since).toISOString()}; failing fast until it does`, this.retryAfterSec, {
      cause: this.down!.cause,
    });
  }

  private markDown(cause: unknown): void {
    if (this.down || this.closed) return;
    this.down = { since: Date.now(), cause };
    this.options.onChange?.(false, cause);
    let probing = false;
    this.probe = setInterval(() => {
      if (probing) return;
      probing = true;
      const timer = setTimeout(() => (probing = false), this.options.commandTimeoutMs);
      this.client.ping().then(
        () => {
          clearTimeout(timer);
          probing = false;
          this.markUp();
        },
        () => {
          clearTimeout(timer);
          probing = false;
        },
      );
    }, this.options.probeIntervalMs);
    this.probe.unref?.();
  }

  private markUp(): void {
    if (!this.down) return;
    this.down = undefined;
    if (this.probe) clearInterval(this.probe);
    this.probe = undefined;
    this.options.onChange?.(true);
  }
}

/** Methods of an ioredis client that make a batch whose `exec` sends it. */
const BATCHES = new Set(['pipeline', 'multi']);
/** Methods that are not commands: connection management, events, and what the guard itself uses. */
const PASSED_THROUGH = new Set(['duplicate', 'on', 'once', 'off', 'removeListener', 'addListener', 'emit', 'connect', 'disconnect', 'quit', 'defineCommand']);

/**
 * The client with every command (a method that returns a promise) and every batch's `exec`
 * run through the guard; everything else as it is.
 */
function guardedClient(client: Redis, guard: RedisGuard): Redis {
  return new Proxy(client, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function' || typeof property !== 'string' || PASSED_THROUGH.has(property)) return value;
      if (BATCHES.has(property)) {
        return (...args: unknown[]) => {
          const batch = (value as (...a: unknown[]) => { exec: () => Promise<unknown> }).apply(target, args);
          const exec = batch.exec.bind(batch);
          batch.exec = () => guard.run(exec);
          return batch;
        };
      }
      return (...args: unknown[]) => {
        if (!guard.up) return guard.refuse();
        const result = (value as (...a: unknown[]) => unknown).apply(target, args);
        return result instanceof Promise ? guard.run(() => result) : result;
      };
    },
  });
}
