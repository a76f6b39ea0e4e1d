import { ClientCapabilityError, McpError, RequestEndedError } from '@typemcp/core';
import type { Context, LoggingLevel } from '@typemcp/core';
import { UpstreamError } from './client/UpstreamSession';
import type { UpstreamSession } from './client/UpstreamSession';

/** What the client may be asked through the proxy, and the capability each needs. */
const QUESTIONS: Readonly<Record<string, string>> = { 'sampling/createMessage': 'sampling', 'elicitation/create': 'elicitation', 'roots/list': 'roots' };
/** The log levels of MCP. */
export const LEVELS: ReadonlySet<string> = new Set(['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency']);
/** Where the upstream's pending 2026-07-28 round waits in the request's carried state. */
const CARRIED = 'typemcp/proxy';
/** Rounds of input one request may take before the proxy gives up on it. */
const MAX_ROUNDS = 16;
/** Result fields the era of the conversation sets; an upstream's are not passed on. */
const ERA_FIELDS = ['resultType', 'ttlMs', 'cacheScope'];
const PROTOCOL_META = 'io.modelcontextprotocol/';

/** An upstream round waiting for the client's answers: its questions and the state to send back. */
interface PendingRound {
  round: number;
  state: string | undefined;
  questions: Record<string, { method: string; params?: Record<string, unknown> }>;
}

/** How one request reaches the upstream. */
export interface RelayTarget {
  session: UpstreamSession;
  headers?: Record<string, string>;
  paramHeaders?: Record<string, string>;
  timeoutMs?: number;
}

/**
 * Forwards one request to the upstream on behalf of the client of `ctx`, and what happens
 * while it runs both ways: progress under the client's token, the client's cancellation, the
 * upstream's log messages, and its questions (sampling, elicitation, roots) asked of the
 * client. At 2026-07-28 upstream questions come as `input_required`: each round is asked of
 * the client, and where the client too speaks 2026-07-28 the upstream's state waits in this
 * request's own signed state until the client answers.
 */
export async function relay(target: RelayTarget, method: string, params: Record<string, unknown>, ctx: Context): Promise<Record<string, unknown>> {
  const { session } = target;
  // Cancels the upstream call in flight, on the client's cancellation or when the client is asked on a retry.
  let cancelUpstream: ((reason: string) => void) | undefined;
  const wantsProgress = (ctx.requestParams._meta as Record<string, unknown> | undefined)?.progressToken !== undefined;
  // Hearing of the client's cancellation without ctx.signal: an AbortController per call costs more than the relay itself.
  let cancelled = false;
  const stopListening = ctx.onCancel((reason) => {
    cancelled = true;
    cancelUpstream?.(String(reason ?? 'cancelled'));
  });
  const options = {
    cancelWith: (cancel: (reason: string) => void) => void (cancelUpstream = cancel),
    headers: target.headers,
    paramHeaders: target.paramHeaders,
    timeoutMs: target.timeoutMs,
    meta: session.modern ? modernMeta(ctx) : undefined,
    onProgress: wantsProgress ? (p: { progress: number; total?: number; message?: string }) => ctx.progress(p.progress, p.total, p.message) : undefined,
    onNotification: (name: string, body: Record<string, unknown>) => forwardLog(name, body, ctx),
    onRequest: (name: string, body: Record<string, unknown>) =>
      ask(ctx, name, body).catch((error: unknown) => {
        // The client's answer comes on a retry (2026-07-28): this call of the upstream is over.
        if (error instanceof RequestEndedError) cancelUpstream?.('the client is asked on a retry');
        throw error;
      }),
  };
  try {
    // Only a 2026-07-28 upstream asks for input: a handshake-era one carries no round (nor makes the request keep state).
    const carried = session.modern ? (ctx.carried[CARRIED] as PendingRound | undefined) : undefined;
    let body = params;
    let round = 0;
    if (carried) {
      round = carried.round;
      body = { ...params, inputResponses: await answers(ctx, carried) };
      if (carried.state !== undefined) body.requestState = carried.state;
    }
    for (;;) {
      const result = await session.request(method, body, options);
      if (result.resultType !== 'input_required') return withoutEraFields(result);
      if (++round > MAX_ROUNDS) throw new McpError(-32603, `The upstream asked for input more than ${MAX_ROUNDS} times in one ${method}`);
      const pending: PendingRound = { round, state: result.requestState as string | undefined, questions: (result.inputRequests as PendingRound['questions']) ?? {} };
      // Kept before the questions: if they end this round, the retry resumes the upstream's here.
      ctx.carried[CARRIED] = pending;
      body = { ...params, inputResponses: await answers(ctx, pending) };
      if (pending.state !== undefined) body.requestState = pending.state;
    }
  } catch (error) {
    throw cancelled ? error : asDownstreamError(error);
  } finally {
    stopListening();
  }
}

/** The client's answers to an upstream round, asked all at once so they share one round of ours. */
async function answers(ctx: Context, round: PendingRound): Promise<Record<string, unknown>> {
  const keys = Object.keys(round.questions);
  const replies = await Promise.all(keys.map((key) => ask(ctx, round.questions[key].method, round.questions[key].params ?? {}, `upstream-${round.round}-${key}`)));
  return Object.fromEntries(keys.map((key, i) => [key, replies[i]]));
}

/** Asks the client what the upstream asked, if the client can be asked it. */
function ask(ctx: Context, method: string, params: Record<string, unknown>, key?: string): Promise<Record<string, unknown>> {
  const capability = QUESTIONS[method];
  if (capability === undefined) return Promise.reject(new UpstreamError(-32601, `The proxy does not relay ${method}`));
  if ((ctx.clientCapabilities as Record<string, unknown>)[capability] === undefined) {
    return Promise.reject(new ClientCapabilityError(capability, `The upstream asked for ${method}, which the client does not support`));
  }
  return ctx.requestClient(method, params, key === undefined ? {} : { key });
}

/** The capabilities a client's questions can be relayed with, worked out once for each client's capabilities. */
const relayableOf = new WeakMap<object, Record<string, unknown>>();
const CAPABILITIES = Object.values(QUESTIONS);

/** A 2026-07-28 upstream hears what the client of this request can do and what it logs. */
function modernMeta(ctx: Context): Record<string, unknown> {
  const capabilities = ctx.clientCapabilities as Record<string, unknown>;
  let relayable = relayableOf.get(capabilities);
  if (relayable === undefined) {
    relayable = {};
    for (const capability of CAPABILITIES) {
      const value = capabilities[capability];
      if (value !== undefined) relayable[capability] = value;
    }
    relayableOf.set(capabilities, relayable);
  }
  const level = logLevelOf(ctx);
  return level === undefined ? { 'io.modelcontextprotocol/clientCapabilities': relayable } : { 'io.modelcontextprotocol/clientCapabilities': relayable, 'io.modelcontextprotocol/logLevel': level };
}

function logLevelOf(ctx: Context): LoggingLevel | undefined {
  const given = (ctx.requestParams._meta as Record<string, unknown> | undefined)?.['io.modelcontextprotocol/logLevel'];
  if (typeof given === 'string' && LEVELS.has(given)) return given as LoggingLevel;
  return ctx.session?.logLevel;
}

/** A log message of the upstream's, about this request: the client's log, by its own level. */
function forwardLog(method: string, params: Record<string, unknown>, ctx: Context): void {
  if (method !== 'notifications/message') return;
  const level = String(params.level);
  if (!LEVELS.has(level)) return;
  ctx.log[level as LoggingLevel](params.data, typeof params.logger === 'string' ? params.logger : undefined);
}

/** The result without what the upstream's era put on it (`resultType`, cache hints, protocol `_meta`): this server's era sets its own. */
function withoutEraFields(result: Record<string, unknown>): Record<string, unknown> {
  const meta = result._meta as Record<string, unknown> | undefined;
  const protocolMeta = meta !== undefined && Object.keys(meta).some((key) => key.startsWith(PROTOCOL_META));
  if (!protocolMeta && !ERA_FIELDS.some((field) => field in result)) return result;
  // Copied field by field, leaving those out (deleting would make the copy slow to serialize).
  const copy: Record<string, unknown> = {};
  for (const key in result) {
    if (ERA_FIELDS.includes(key) || (protocolMeta && key === '_meta')) continue;
    copy[key] = result[key];
  }
  if (protocolMeta) {
    const kept = Object.fromEntries(Object.entries(meta).filter(([key]) => !key.startsWith(PROTOCOL_META)));
    if (Object.keys(kept).length > 0) copy._meta = kept;
  }
  return copy;
}

/** The upstream's own JSON-RPC error as the client hears it: its code, message and data. A gone upstream is the caller's to word. */
function asDownstreamError(error: unknown): unknown {
  return error instanceof UpstreamError ? new McpError(error.code, error.message, error.data) : error;
}
