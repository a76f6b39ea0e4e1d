import { ErrorCode, McpError } from '../errors';
import type { AppResourceUi, ResourceListing } from '../metadata';
import { clip, echo } from '../protocol';
import type { Revision } from '../protocol';
import type { Context } from '../runtime/Context';
import type { InvocationTarget } from '../runtime/middleware';

/**
 * A resource with a fixed uri a server serves, whoever reads it: a provider's method
 * (buildResource.ts), a mounted server, something remote.
 */
export interface ResourceItem {
  /** Its uri. */
  readonly key: string;
  readonly name: string;
  /** Whose access rules apply. */
  readonly target: InvocationTarget;
  /** MCP Apps: the settings of an app's UI, when it is one. */
  readonly ui: AppResourceUi | undefined;
  /** The `resources/list` entry as the given revision can carry it. */
  listing(revision: Revision): Record<string, unknown>;
  /** `resources/read` of its uri (the caller's right to it checked): the `ReadResourceResult`. */
  read(uri: string, ctx: Context): Promise<Record<string, unknown>>;
  /** `completion/complete` with this resource as `ref`, with these params (checked by the handler). */
  complete(params: Record<string, unknown>, ctx: Context): Promise<Record<string, unknown>>;
}

/** A resource template a server serves, whoever reads it. */
export interface TemplateItem {
  /** Its uri template. */
  readonly key: string;
  readonly name: string;
  /** Whose access rules apply. */
  readonly target: InvocationTarget;
  /** The `resources/templates/list` entry as the given revision can carry it. */
  listing(revision: Revision): Record<string, unknown>;
  /** The template's variables in `uri`, or undefined when it does not match. */
  match(uri: string): Record<string, unknown> | undefined;
  /** `resources/read` of a uri it matched, with the variables `match` found: the `ReadResourceResult`. */
  read(uri: string, variables: Record<string, unknown>, ctx: Context): Promise<Record<string, unknown>>;
  /** The resources it lists in `resources/list` now, in this server's uris (none unless it has a `list` method). */
  enumerate(ctx: Context): readonly ResourceListing[] | Promise<readonly ResourceListing[]>;
  /** `completion/complete` of one of its variables, with these params (checked by the handler). */
  complete(params: Record<string, unknown>, ctx: Context): Promise<Record<string, unknown>>;
}

/** -32002 with the uri in `data`, as the specification asks. */
export function resourceNotFound(uri: string): McpError {
  return new McpError(ErrorCode.ResourceNotFound, `Resource not found: ${clip(uri)}`, { uri: echo(uri) });
}
