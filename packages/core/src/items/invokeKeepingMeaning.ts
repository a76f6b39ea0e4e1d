import { InvalidParamsError, ToolError } from '../errors';
import type { Context } from '../runtime/Context';
import type { InvocationTarget } from '../runtime/middleware';
import type { ItemHost } from './ItemHost';

/**
 * Calls a resource or prompt method. A `ToolError` it throws (the author's message for the
 * caller, as in a tool) becomes -32602 with that message: outside tools there is no `isError`
 * result, and an unexpected failure would hide the message behind -32603.
 */
export async function invokeKeepingMeaning(host: Pick<ItemHost, 'invoke'>, target: InvocationTarget, args: readonly unknown[], ctx: Context): Promise<unknown> {
  try {
    return await host.invoke(target, args, ctx);
  } catch (error) {
    if (error instanceof ToolError) throw new InvalidParamsError(error.message);
    throw error;
  }
}
