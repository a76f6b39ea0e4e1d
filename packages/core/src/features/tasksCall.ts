import { InvalidRequestError } from '../errors';
import { isPlainObject } from '../protocol';
import type { Context } from '../runtime/Context';
import type { RegisteredTool } from '../runtime/buildTool';
import { TASK_RUN_META } from '../tasks';
import type { FeatureHost } from './FeatureHost';

/** What a task's request keeps, under `_meta["dev.typemcp/task"]`, to run again with the same caller. */
export interface TaskRunContext {
  protocolVersion?: string;
  clientCapabilities: Record<string, unknown>;
  clientInfo?: Record<string, unknown>;
  /** The handshake-era session it was created in. */
  session?: string;
  principal?: { subject: string; scopes: readonly string[]; roles?: readonly string[]; claims: Readonly<Record<string, unknown>> };
}

/** True when some enabled tool may run as a task. */
export function anyTaskTool(host: Pick<FeatureHost, 'tools'>): boolean {
  return host.tools.list().some((tool) => tool.taskSupport !== 'forbidden');
}

/**
 * Whose tasks the caller of `ctx` sees: its principal, else its handshake-era session;
 * `anonymous` for a 2026-07-28 request without a principal (the unguessable task id is then
 * the only key); undefined for a stateless handshake-era request without one (nothing binds it).
 */
export function ownerOf(ctx: Context): string | undefined {
  const subject = ctx.principal?.subject;
  if (subject !== undefined) return `principal:${subject}`;
  const session = ctx.session;
  if (session) return session.stateless ? undefined : `session:${session.id}`;
  return 'anonymous';
}

/**
 * The task branch of `tools/call`, for a tool with task support or a call asking for a task:
 * a promise of the era's answer when the call becomes a task, undefined when it runs as
 * usual. Throws the era's error when the tool and the call disagree.
 */
export function callAsTask(host: FeatureHost, tool: RegisteredTool, params: Record<string, unknown>, ctx: Context): Promise<Record<string, unknown>> | undefined {
  const asTask = ctx.codec.tasks.taskCall(params, ctx, tool, anyTaskTool(host));
  return asTask && createTask(host, tool, params, ctx, asTask.ttl);
}

async function createTask(
  host: FeatureHost,
  tool: RegisteredTool,
  params: Record<string, unknown>,
  ctx: Context,
  ttl: number | undefined,
): Promise<Record<string, unknown>> {
  const owner = ownerOf(ctx);
  if (owner === undefined) {
    throw new InvalidRequestError('Task-augmented calls need a session or an authenticated caller: this stateless request has neither, so nobody could read the task back');
  }
  const { task: _task, _meta, ...rest } = params;
  const run: TaskRunContext = { protocolVersion: ctx.protocolVersion, clientCapabilities: { ...ctx.clientCapabilities } };
  if (ctx.clientInfo) run.clientInfo = { ...ctx.clientInfo };
  if (ctx.session) run.session = ctx.session.id;
  const principal = ctx.principal;
  if (principal) run.principal = { subject: principal.subject, scopes: principal.scopes, roles: principal.roles, claims: principal.claims };
  const meta = { ...(isPlainObject(_meta) ? _meta : {}), [TASK_RUN_META]: run };
  const record = host.tasks.newRecord({
    owner,
    request: { method: 'tools/call', params: { ...rest, _meta: meta } },
    rerunnable: tool.definition.options.annotations?.idempotentHint === true,
    ttlMs: host.tasks.ttlFor(ttl),
  });
  await host.tasks.create(record);
  return ctx.codec.tasks.created(record);
}
