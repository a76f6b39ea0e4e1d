import type { Revision } from '../protocol';
import type { Context } from '../runtime/Context';
import type { InvocationTarget } from '../runtime/middleware';

/** A prompt a server serves, whoever answers it: a provider's method (buildPrompt.ts), a mounted server, something remote. */
export interface PromptItem {
  readonly name: string;
  /** Whose access rules apply. */
  readonly target: InvocationTarget;
  /** The `prompts/list` entry as the given revision can carry it. */
  listing(revision: Revision): Record<string, unknown>;
  /** `prompts/get` with these params (the caller's right to it checked): the `GetPromptResult`. */
  get(params: Record<string, unknown>, ctx: Context): Promise<Record<string, unknown>>;
  /** `completion/complete` of one of its arguments, with these params (checked by the handler). */
  complete(params: Record<string, unknown>, ctx: Context): Promise<Record<string, unknown>>;
}
