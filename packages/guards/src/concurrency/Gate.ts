/** How many calls of one item run at once, and how many may wait. */
export interface ConcurrencySettings {
  /** Calls running at once, of every caller. */
  readonly max: number;
  /** Calls running at once of one caller (`callerOf`); no limit of its own when left out. */
  readonly perCaller?: number;
  /**
   * Calls that may wait for a slot, in arrival order (default 0: a call with no slot is refused
   * at once); with `perCaller`, at most `perCaller` of them of one caller.
   */
  readonly queue?: number;
}

/** A call waiting for a slot. */
interface Waiter {
  readonly caller: string;
  readonly start: () => void;
}

/** Why a call got no slot and no place in the queue: the counts its refusal names. */
export interface GateRefusal {
  readonly running: number;
  readonly waiting: number;
  /** Set when the caller's own limit kept it out: its calls running. */
  readonly callerRunning?: number;
}

/**
 * The slots of one item on this replica: at most `max` running, at most `perCaller` of one
 * caller, and a queue of at most `queue` waiting. A freed slot goes to the first waiter that may
 * run (a waiter whose caller is at its own limit does not hold up those behind it).
 */
export class Gate {
  private running = 0;
  private readonly byCaller = new Map<string, number>();
  private readonly waiting: Waiter[] = [];

  constructor(readonly settings: ConcurrencySettings) {}

  /** True when nothing runs or waits: the gate may be forgotten. */
  get idle(): boolean {
    return this.running === 0 && this.waiting.length === 0;
  }

  /**
   * Takes a slot for `caller`: true when taken at once, a promise that resolves when it is taken
   * (rejecting with the request signal's reason if the request is cancelled first, leaving the queue), or
   * the counts of a refusal when the queue is full.
   */
  enter(caller: string, context: { readonly signal: AbortSignal }): true | Promise<void> | GateRefusal {
    if (this.mayRun(caller)) {
      this.take(caller);
      return true;
    }
    const full = this.waiting.length >= (this.settings.queue ?? 0);
    if (full || this.waitsEnough(caller)) {
      const callerRunning = !full || this.running < this.settings.max ? (this.byCaller.get(caller) ?? 0) : undefined;
      return { running: this.running, waiting: this.waiting.length, ...(callerRunning === undefined ? {} : { callerRunning }) };
    }
    // Read only for a call that waits: the request's signal (an AbortController) is made when first read.
    const signal = context.signal;
    if (signal.aborted) return Promise.reject(reasonOf(signal));
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        caller,
        start: () => {
          signal.removeEventListener('abort', leave);
          resolve();
        },
      };
      const leave = () => {
        const at = this.waiting.indexOf(waiter);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(reasonOf(signal));
      };
      signal.addEventListener('abort', leave, { once: true });
      this.waiting.push(waiter);
    });
  }

  /** Gives back `caller`'s slot and starts the first waiters that may run now. */
  leave(caller: string): void {
    this.running--;
    if (this.settings.perCaller !== undefined) {
      const count = (this.byCaller.get(caller) ?? 1) - 1;
      if (count === 0) this.byCaller.delete(caller);
      else this.byCaller.set(caller, count);
    }
    if (this.waiting.length === 0) return;
    for (let i = 0; i < this.waiting.length && this.running < this.settings.max; ) {
      const waiter = this.waiting[i];
      if (!this.mayRun(waiter.caller)) {
        i++;
        continue;
      }
      this.waiting.splice(i, 1);
      this.take(waiter.caller);
      waiter.start();
    }
  }

  /** With `perCaller`, a caller waits with at most that many calls: one caller cannot fill the queue. */
  private waitsEnough(caller: string): boolean {
    const { perCaller } = this.settings;
    if (perCaller === undefined) return false;
    let waiting = 0;
    for (const waiter of this.waiting) if (waiter.caller === caller && ++waiting >= perCaller) return true;
    return false;
  }

  private mayRun(caller: string): boolean {
    const { max, perCaller } = this.settings;
    return this.running < max && (perCaller === undefined || (this.byCaller.get(caller) ?? 0) < perCaller);
  }

  private take(caller: string): void {
    this.running++;
    // Calls per caller are counted only where they are limited.
    if (this.settings.perCaller !== undefined) this.byCaller.set(caller, (this.byCaller.get(caller) ?? 0) + 1);
  }
}

/** What a cancelled wait rejects with: the cancellation's reason when it is an Error. */
function reasonOf(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error(`cancelled while waiting for a slot: ${String(signal.reason)}`);
}
