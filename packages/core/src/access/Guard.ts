import type { Context } from '../runtime/Context';
import type { InvocationTarget } from '../runtime/middleware';
import type { Principal } from './Principal';

/** What a guard decides on. */
export interface GuardInput {
  /** The caller: always authenticated, since anonymous callers are refused before guards run. */
  readonly principal: Principal;
  /** The tool, resource, prompt or completion asked for. */
  readonly target: InvocationTarget;
  /** The request: its params, client, protocol version, … */
  readonly context: Context;
}

/**
 * A custom access rule (`@Guard(fn)`): true lets the caller see and use the target. Runs for
 * every call and every listing that would show the target, so keep it cheap; it may be async.
 */
export type AccessGuard = (input: GuardInput) => boolean | Promise<boolean>;
