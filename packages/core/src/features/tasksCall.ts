import { InvalidRequestError } from '../errors';
import { isPlainObject } from '../protocol';
import type { Context } from '../runtime/Context';
import type { CallToolResult, ToolItem } from '../items/ToolItem';
import { TASK_RUN_META } from '../tasks';
import type { TaskOutcome, TaskRecord } from '../tasks';
import type { TaskHost } from './rooms';
import { failure, taskChannel } from './taskRun';
import type { TaskRunContext } from './taskRun';

/** True when some enabled tool may run as a task. */
/** What calling a tool as a task needs: the tools, the task runtime, the session its messages go to, where failures go. */
export type TaskCallHost = Pick<TaskHost, 'tools' | 'tasks' | 'sessionConnection' | 'reportError' | 'debug'>;

export function anyTaskTool(host: Pick<TaskHost, 'tools'>): boolean {
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

/** Runs the tool within the call, as an ordinary `tools/call` does. */
export type RunTool = () => CallToolResult | Promise<CallToolResult>;

/**
 * The task branch of `tools/call`, for a tool with task support or a call asking for a task:
 * a promise of the era's answer when the call may become a task, undefined when it runs as
 * usual. Throws the era's error when the tool and the call disagree.
 */
export function callAsTask(
  host: TaskCallHost,
  tool: ToolItem,
  params: Record<string, unknown>,
  ctx: Context,
  runTool: RunTool,
): Promise<Record<string, unknown>> | undefined {
  const asTask = ctx.codec.tasks.taskCall(params, ctx, tool, anyTaskTool(host));
  if (!asTask) return undefined;
  const owner = ownerOf(ctx);
  if (owner === undefined) {
    throw new InvalidRequestError('Task-augmented calls need a session or an authenticated caller: this stateless request has neither, so nobody could read the task back');
  }
  const record = () => newRecord(host, tool, params, ctx, owner, asTask.ttl);
  if (tool.taskStart === 'continueAsTask') return startThenHandOff(host, ctx, record, runTool);
  return host.tasks.create(record()).then((task) => ctx.codec.tasks.created(task));
}

/**
 * A tool declared with `taskStart: 'continueAsTask'`: its method starts within the call, and
 * the call is answered with a task when it calls `ctx.continueAsTask()`; the method then goes
 * on as that task. A method that returns first answers the call itself, where the era allows
 * (2026-07-28); a 2025-11-25 client that asked for a task gets one, already ended.
 */
function startThenHandOff(host: TaskCallHost, ctx: Context, record: () => TaskRecord, runTool: RunTool): Promise<Record<string, unknown>> {
  const { codec } = ctx;
  let outcome!: Promise<TaskOutcome>;
  let handedOff = false;
  return new Promise<Record<string, unknown>>((resolve, reject) => {
    const handOff = async (goesOn = true) => {
      const task = await host.tasks.create(record(), (_task, signal) => {
        if (signal.aborted) ctx.cancel(signal.reason);
        else signal.addEventListener('abort', () => ctx.cancel(signal.reason), { once: true });
        return outcome;
      });
      handedOff = true;
      if (goesOn) ctx.detach(taskChannel(host, task, ctx.session?.id));
      resolve(codec.tasks.created(task));
    };
    ctx.offerHandOff(handOff);
    let ran: Promise<CallToolResult>;
    try {
      ran = Promise.resolve(runTool());
    } catch (error) {
      ran = Promise.reject(error);
    }
    outcome = ran.then(
      (result) => codec.tasks.outcome(result as Record<string, unknown>),
      (error: unknown) => failure(error, codec, host),
    );
    outcome.finally(() => handedOff && ctx.endDetached()).catch(() => undefined);
    ran.then(
      (result) => {
        if (handedOff) return;
        ctx.offerHandOff(undefined);
        if (codec.tasks.directResults) resolve(result as Record<string, unknown>);
        else handOff(false).catch(reject);
      },
      (error: unknown) => {
        if (!handedOff) reject(error);
      },
    );
  });
}

/** A new task's record: the call, and the caller it runs for, saved to run it again elsewhere. */
function newRecord(host: TaskCallHost, tool: ToolItem, params: Record<string, unknown>, ctx: Context, owner: string, ttl: number | undefined): TaskRecord {
  // The call's own round state (2026-07-28 answers and requestState) is not the task's.
  const { task: _task, _meta, inputResponses: _answers, requestState: _state, ...rest } = params;
  const run: TaskRunContext = { protocolVersion: ctx.protocolVersion, clientCapabilities: { ...ctx.clientCapabilities } };
  if (ctx.clientInfo) run.clientInfo = { ...ctx.clientInfo };
  if (ctx.session) run.session = ctx.session.id;
  const principal = ctx.principal;
  if (principal) run.principal = { subject: principal.subject, scopes: principal.scopes, roles: principal.roles, claims: principal.claims };
  const meta = { ...(isPlainObject(_meta) ? _meta : {}), [TASK_RUN_META]: run };
  return host.tasks.newRecord({
    owner,
    request: { method: 'tools/call', params: { ...rest, _meta: meta } },
    rerunnable: tool.annotations?.idempotentHint === true,
    ttlMs: host.tasks.ttlFor(ttl),
  });
}
