/**
 * Timers as every runtime has them: Node and Bun return objects that can be unref'd, Deno and
 * Workers return numbers. Background timers are unref'd where that exists, so they never keep
 * a Node process alive.
 */
export function unrefTimer<T>(timer: T): T {
  (timer as { unref?: () => void } | undefined)?.unref?.();
  return timer;
}

/**
 * Runs `callback` in a later turn of the event loop, as a timer: setImmediate is Node's only
 * (under Node a 0 ms timer waits about 1 ms).
 */
export function nextTurn(callback: () => void): void {
  setTimeout(callback, 0);
}

/** A promise that settles in a later turn of the event loop. */
export function laterTurn(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}
