import type { DependencyContainer } from 'tsyringe';
import type { EraCodec, EraSource, Prepared } from '../eras';
import { InternalError, MethodNotFoundError, withoutStack } from '../errors';
import { clip } from '../protocol';
import type { HttpRequestInfo, JsonRpcErrorObject, JsonRpcRequest, JsonRpcResponse, Principal, RequestId } from '../protocol';
import { Context } from './Context';
import type { ClientFeatures } from './Context';
import type { Dispatcher, MethodHandler } from './Dispatcher';
import { rememberCause } from './observers';

/** What running a request needs of the server. */
export interface RunnerHost {
  readonly dispatcher: Dispatcher;
  readonly container: DependencyContainer;
  readonly clientFeatures: ClientFeatures;
  readonly debug: boolean;
  reportError(what: string, error: unknown): void;
}

/** A request being run, as whoever keeps track of it sees it. */
export interface Running {
  readonly ctx: Context;
  readonly method: string;
  readonly codec: EraCodec;
  /** Set when the request was cancelled: it is not answered. */
  cancelled: boolean;
}

/** A request being run, with what settling it needs. */
interface Run extends Running {
  readonly host: RunnerHost;
  readonly source: EraSource;
  readonly tracker: Tracker;
  readonly id: RequestId;
}

/** Hears a request start and end (a connection keeps its requests in flight by id). */
export interface Tracker {
  started(id: RequestId, running: Running): void;
  ended(id: RequestId, running: Running): void;
}

/** Where a request's later answer goes. */
export type Deliver = (response: JsonRpcResponse | undefined) => void;

/** One request to run: where it came from, its era's codec, the message and its params, who sent it, and who hears it. */
export interface RequestToRun {
  /** What the codec reads the request's context from (a connection, or a request served alone). */
  readonly source: EraSource;
  readonly codec: EraCodec;
  readonly message: JsonRpcRequest;
  readonly params: Record<string, unknown>;
  readonly principal: Principal | undefined;
  readonly httpRequest: HttpRequestInfo | undefined;
  /** The client's network address, over HTTP when the host knows it. */
  readonly clientAddress?: string;
  readonly tracker: Tracker;
  /** Where an answer that comes later goes; without it, runRequest returns a promise. */
  readonly deliver?: Deliver;
}

/** An answer now, later through a Deliver, or as a promise; undefined for a request not answered. */
export type Answer = JsonRpcResponse | undefined | Promise<JsonRpcResponse | undefined>;

/**
 * Serves one request in its era: the codec's refusal, its scope and channel, its Context, the
 * route through the middleware, and the answer as the codec encodes it. Answers synchronously
 * when the handler does, so fast requests skip the microtask queue. With `deliver`, an answer
 * that comes later goes to it instead of into a returned promise.
 */
export function runRequest(host: RunnerHost, request: RequestToRun): Answer {
  const { source, codec, params, principal, httpRequest, clientAddress, tracker, deliver } = request;
  const { id, method } = request.message;
  const route = host.dispatcher.routeOf(method);
  const refused = codec.refusal(source, method, params, route);
  if (refused !== undefined) return errorResponse(id, refused.toJSON());
  if (!route) return errorResponse(id, new MethodNotFoundError(`Method not found: ${clip(method)}`).toJSON());
  let prepared: Prepared;
  try {
    prepared = codec.prepare(source, method, params, id, principal);
  } catch (error) {
    return failed(host, id, error, method, codec);
  }
  const ctx = new Context({
    requestId: id,
    method,
    scope: prepared.scope,
    container: host.container,
    channel: prepared.channel,
    client: host.clientFeatures,
    progressToken: progressTokenOf(params),
    params,
    principal,
    codec,
    httpRequest,
    clientAddress,
  });
  const run: Run = { ctx, method, codec, cancelled: false, host, source, tracker, id };
  // Tracked from here: a cancel, a close or a limit sees the request while it is checked too.
  tracker.started(id, run);
  if (prepared.ready === undefined) return dispatch(run, route.handler, params, prepared, deliver);
  // Something the request carried is checked asynchronously first (WebCrypto).
  const answer = prepared.ready.then(
    () => (run.cancelled ? settle(run, undefined, undefined) : dispatch(run, route.handler, params, prepared, undefined)),
    (error: unknown) => settle(run, undefined, error ?? new Error('rejected')),
  );
  if (!deliver) return answer;
  answer.then(deliver).catch((failure: unknown) => host.reportError('request failed', failure));
  return undefined;
}

/** Runs a tracked request's handler through the middleware; its answer as runRequest gives it. */
function dispatch(run: Run, handler: MethodHandler, params: Record<string, unknown>, prepared: Prepared, deliver: Deliver | undefined): Answer {
  let result: ReturnType<MethodHandler>;
  try {
    result = run.host.dispatcher.dispatch(handler, run.method, params, run.ctx);
  } catch (error) {
    return settle(run, undefined, error);
  }
  if (!(result instanceof Promise)) return settle(run, result, undefined);
  // The era may end the request first (2026-07-28: the first unanswered question to the client).
  const answer = prepared.interrupt === undefined ? result : Promise.race([result, prepared.interrupt]);
  if (deliver) {
    answer.then(
      (value) => settleAndDeliver(run, value as Record<string, unknown>, undefined, deliver),
      (error: unknown) => settleAndDeliver(run, undefined, error ?? new Error('rejected'), deliver),
    );
    return undefined;
  }
  return answer.then(
    (value) => settle(run, value as Record<string, unknown>, undefined),
    (error: unknown) => settle(run, undefined, error ?? new Error('rejected')),
  );
}

function settleAndDeliver(run: Run, result: Record<string, unknown> | undefined, error: unknown, deliver: Deliver): void {
  try {
    deliver(settle(run, result, error));
  } catch (failure) {
    run.host.reportError('request failed', failure);
  }
}

function settle(run: Run, result: Record<string, unknown> | undefined, error: unknown): JsonRpcResponse | undefined {
  const { ctx, method, codec, host, source, id } = run;
  ctx.finish();
  run.tracker.ended(id, run);
  if (run.cancelled) return undefined;
  if (error !== undefined) return failed(host, id, error, method, codec);
  if (typeof result !== 'object' || result === null || Array.isArray(result)) {
    // A route or middleware that returned no result object (a forgotten `return`).
    return failed(host, id, new Error(`"${method}" produced ${Array.isArray(result) ? 'an array' : String(result)} instead of a result object`), method, codec);
  }
  if (result.resultType === 'input_required') {
    // Questions still waiting in the handler are dropped with it.
    ctx.cancel(withoutStack(() => new Error('Answered with input_required')));
  }
  return { jsonrpc: '2.0', id, result: codec.complete(source, method, result, ctx.resultHints) };
}

/** The error answer of a request, as its era sends what was thrown; an unexpected failure is reported and hidden. */
export function failed(host: Pick<RunnerHost, 'debug' | 'reportError'>, id: RequestId, thrown: unknown, method: string, codec: EraCodec): JsonRpcResponse {
  const error = codec.error(thrown);
  if (error !== undefined) return rememberCause(errorResponse(id, error.toJSON()), thrown);
  host.reportError(`"${method}" failed`, thrown);
  const message = host.debug && thrown instanceof Error ? `Internal error: ${thrown.message}` : 'Internal error';
  return rememberCause(errorResponse(id, new InternalError(message).toJSON()), thrown);
}

export function errorResponse(id: RequestId | null, error: JsonRpcErrorObject): JsonRpcResponse {
  return id === null ? { jsonrpc: '2.0', error } : { jsonrpc: '2.0', id, error };
}

function progressTokenOf(params: Record<string, unknown>): string | number | undefined {
  const token = (params._meta as Record<string, unknown> | undefined)?.progressToken;
  return typeof token === 'string' || typeof token === 'number' ? token : undefined;
}
