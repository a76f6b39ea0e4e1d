import { ClientCapabilityError, DefinitionError, McpError, RequestEndedError, ToolError, UserRejectedError } from '../errors';
import type { ToolAnnotations, TaskStart, TaskSupport, ToolUi } from '../metadata';
import { clip } from '../protocol';
import type { Revision } from '../protocol';
import type { Context } from '../runtime/Context';
import type { InvocationTarget } from '../runtime/middleware';
import type { JsonSchema } from '../schema';
import { checkSchema, compileAuthoredSchema } from '../validation';
import type { DtoValidator, SchemaValidator } from '../validation';
import type { ToolHeaderParam } from './headerParams';
import type { ItemHost } from './ItemHost';

export type CallToolResult = Record<string, unknown> & { content: unknown[]; isError?: boolean };

/** The tool names MCP allows: 1-128 of A-Z, a-z, 0-9, "_", "-", ".". */
export const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/**
 * A tool a server serves, whoever runs it: a provider's method (buildTool.ts), a mounted
 * server, a transform of another tool, or something remote (composition/).
 */
export interface ToolItem {
  readonly name: string;
  /** Whose access rules and `@UseMiddleware` apply. */
  readonly target: InvocationTarget;
  /** The JSON Schema of the tool's arguments, as listed. */
  readonly inputSchema: JsonSchema;
  readonly annotations: ToolAnnotations | undefined;
  /** Arguments mirrored in `Mcp-Param-*` headers of 2026-07-28 HTTP requests (`x-mcp-header`). */
  readonly headerParams: readonly ToolHeaderParam[];
  /** Whether the tool may run as a task (`@Tool({ task })`). */
  readonly taskSupport: TaskSupport;
  /** When a call that becomes a task becomes one (`@Tool({ taskStart })`). */
  readonly taskStart: TaskStart;
  /** MCP Apps: the tool's UI, if it has one. */
  readonly ui: ToolUi | undefined;
  /** The `tools/list` entry as the given revision can carry it. */
  listing(revision: Revision): Record<string, unknown>;
  /** The entry for a client that cannot show apps: without the UI in `_meta`. */
  plainListing(revision: Revision): Record<string, unknown>;
  /**
   * Validates the arguments, runs the tool and shapes its result. Failures the model can act on
   * (invalid arguments, ToolError, unexpected exceptions) are `isError` results; a protocol
   * error is thrown. Synchronous unless something on the way is not.
   */
  call(args: unknown, ctx: Context): CallToolResult | Promise<CallToolResult>;
}

/** Checks arguments against a hand-written JSON Schema; one that does not compile fails with a DefinitionError naming `where`. */
export function rawValidator(schema: JsonSchema, where: string): DtoValidator<unknown> {
  let check: SchemaValidator;
  try {
    checkSchema(schema);
    check = compileAuthoredSchema(schema);
  } catch (error) {
    if (error instanceof DefinitionError) throw error;
    throw new DefinitionError('INVALID_OPTION', `${where}: inputSchema does not compile as JSON Schema 2020-12: ${(error as Error).message}`);
  }
  return {
    validate: (args) => {
      const errors = check(args);
      return errors.length === 0 ? { ok: true, value: args } : { ok: false, errors };
    },
  };
}

/** What reporting a failed call needs of the server. */
export type FailureHost = Pick<ItemHost, 'reportError' | 'debug'>;

/** A failed call the model should see: `isError: true` with a text explanation. */
export function toolErrorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/**
 * The steps every tool's call begins with: the arguments must be an object, and one the
 * validator accepts (without a validator, an empty one); `run` then gets them as validated.
 */
export function callChecked(
  name: string,
  validator: DtoValidator<unknown> | undefined,
  args: unknown,
  ctx: Context,
  run: (input: unknown, ctx: Context) => CallToolResult | Promise<CallToolResult>,
): CallToolResult | Promise<CallToolResult> {
  if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) {
    return toolErrorResult(`Invalid arguments for tool "${name}": "arguments" must be an object`);
  }
  if (!validator) {
    if (args !== undefined && Object.keys(args).length > 0) {
      const keys = Object.keys(args);
      // Bounded like every other echo of client input: at most 20 names, each cut.
      const unknown = keys.slice(0, 20).map((key) => `unknown property "${clip(key)}"`);
      if (keys.length > 20) unknown.push(`…and ${keys.length - 20} more unknown properties`);
      return toolErrorResult(`Invalid arguments for tool "${name}":\n- ${unknown.join('\n- ')}`);
    }
    return run(undefined, ctx);
  }
  // Stays synchronous unless validation or the method really is asynchronous: most calls are not.
  const outcome = validator.validate(args ?? {});
  const proceed = (checked: Awaited<typeof outcome>) =>
    checked.ok ? run(checked.value, ctx) : toolErrorResult(`Invalid arguments for tool "${name}":\n- ${checked.errors.join('\n- ')}`);
  return outcome instanceof Promise ? outcome.then(proceed) : proceed(outcome);
}

/** Runs a call whose result is already a CallToolResult (another tool's, a remote one's): what it throws is a failed call. */
export function runGuarded(
  name: string,
  host: FailureHost,
  ctx: Context,
  run: () => CallToolResult | Promise<CallToolResult>,
): CallToolResult | Promise<CallToolResult> {
  try {
    const result = run();
    return result instanceof Promise ? result.catch((error: unknown) => failedCall(error, name, host, ctx)) : result;
  } catch (error) {
    return failedCall(error, name, host, ctx);
  }
}

/** What a tool's failure answers: an `isError` result the model can act on, or the protocol error thrown on. */
export function failedCall(error: unknown, name: string, host: FailureHost, ctx: Context): CallToolResult {
  // A request that ended with input_required is not the tool's failure; nor is what the
  // request's era answers as a protocol error of its own (2026-07-28: a missing capability
  // is -32021, a malformed input response -32602).
  if (error instanceof RequestEndedError) throw error;
  if (!(error instanceof McpError) && ctx.codec.error(error) !== undefined) throw error;
  // These say what went wrong without revealing internals, and the model can act on them.
  if (error instanceof ToolError || error instanceof ClientCapabilityError || error instanceof UserRejectedError) {
    return toolErrorResult(error.message);
  }
  // A deliberate protocol error from the author travels as a JSON-RPC error.
  if (error instanceof McpError) throw error;
  if (ctx.cancelled) throw error;
  host.reportError(`tool "${name}" threw`, error);
  const detail = host.debug && error instanceof Error ? `: ${error.message}` : '';
  return toolErrorResult(`Tool "${name}" failed with an internal error${detail}`);
}
