import type { Context } from './Context';
import type { InvocationTarget } from './middleware';

/**
 * What an item a server shows on behalf of a server mounted in it (`server.mount`) knows of
 * where it comes from: a request for it is served by that server, which runs its own
 * middleware, access rules and handler.
 */
export interface MountedItem {
  /** The item's name, uri or uri template in the server it comes from. */
  readonly childKey: string;
  /** Serves `method` in the server the item comes from, with params in that server's names. */
  forward(method: string, params: Record<string, unknown>, ctx: Context): Promise<Record<string, unknown>>;
  /** A uri of the server the item comes from, as this server shows it (resources). */
  toParentUri(uri: string): string;
  /** A uri this server shows, as the server the item comes from knows it; undefined when it is not one of its uris. */
  toChildUri(uri: string): string | undefined;
  /**
   * Runs the tool in the server it comes from, as a call of it there: that server's middleware
   * (as `tools/call`), access rules, validation and method; resolves with the tool's result.
   */
  runTool(args: unknown, ctx: Context): Record<string, unknown> | Promise<Record<string, unknown>>;
  /** Calls author code of the server the item comes from (its container, its `@UseMiddleware`). */
  invoke(target: InvocationTarget, args: readonly unknown[], ctx: Context): unknown;
}
