import type { Context } from '../runtime/Context';
import type { InvocationTarget } from '../runtime/middleware';
import type { Principal } from '../protocol';

/** What a guard decides on. */
export interface GuardInput {
  /** The caller: always authenticated, since anonymous callers are refused before guards run. */
  readonly principal: Principal;
  /** The tool, resource, prompt or completion asked for. */
  readonly target: InvocationTarget;
  /** The request's params as the client sent them (the `uri` of a read, the `arguments` of a call, …). */
  readonly params: Readonly<Record<string, unknown>>;
  /** The request: its client, protocol version, container, … */
  readonly context: Context;
}

/**
 * A custom access rule (`@Guard(fn)`): true lets the caller see and use the target. Runs for
 * every call and every listing that would show the target, so keep it cheap; it may be async.
 */
export type AccessGuard = (input: GuardInput) => boolean | Promise<boolean>;
