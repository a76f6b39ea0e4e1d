import type { AccessPolicy } from '../access';
import type { CompletionDefinition, Constructor } from '../metadata';
import type { Context } from '../runtime/Context';
import type { InvocationTarget } from '../runtime/middleware';

/** A `@Completion` method, as the server keeps it. */
export type Completer = CompletionDefinition & { provider: Constructor; invocation: InvocationTarget };

/**
 * What the items of a server's own providers need of that server: its invoker of author code,
 * where failures are reported, and its `@Completion` methods (registered as providers come in,
 * so looked up when asked).
 */
export interface ItemHost {
  /** Calls author code: resolves the provider and runs its `@UseMiddleware` chain around the method. */
  invoke(target: InvocationTarget, args: readonly unknown[], ctx: Context): unknown;
  /** Reports a failure the caller is not told the details of (to stderr or the server's logger). */
  reportError(what: string, error: unknown): void;
  /** Whether a tool's internal error tells the model its message. */
  readonly debug: boolean;
  /** The access rules a completer is checked by. */
  readonly access: Pick<AccessPolicy, 'check'>;
  /** The `@Completion` methods, by `completionKey`. */
  readonly completions: ReadonlyMap<string, Completer>;
}
