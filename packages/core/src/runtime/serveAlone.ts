import { codecOf } from '../eras';
import type { EraSource, ServerDescription } from '../eras';
import { ErrorCode, McpError } from '../errors';
import type { JsonRpcMessage, JsonRpcRequest, MessageInfo, RequestId } from '../protocol';
import type { LoggingLevel, RequestChannel, RequestScope } from '../session';
import { passes, RateLimiter } from './Logger';
import type { Observers } from './observers';
import { runRequest } from './runRequest';
import type { Answer, RunnerHost, Running, Tracker } from './runRequest';

/** Where the messages of a request served alone go: the transport's answer to it (an HTTP response). */
export interface AloneSink {
  /** A notification of the request (progress, a log message) for its client. */
  relate(message: JsonRpcMessage): void;
  /** The request started; `cancel` cancels it (the client went away). */
  started(cancel: (reason: Error) => void): void;
}

/** What serving a request alone needs of the server. */
export interface AloneHost extends RunnerHost {
  readonly server: ServerDescription;
  readonly observers: Observers;
  readonly defaultLogLevel: LoggingLevel;
  readonly logRateLimit: number;
}

/**
 * One request served on its own, with no connection and no session (2026-07-28 over HTTP):
 * where it arrived (its era's source), its channel to the client, and what tracks it. Nothing
 * else is made for it beyond what its era and its answer need.
 */
class AloneRequest implements EraSource, RequestChannel, Tracker {
  private logLimiter: RateLimiter | undefined;

  constructor(
    private readonly host: AloneHost,
    private readonly sink: AloneSink,
  ) {}

  get server(): ServerDescription {
    return this.host.server;
  }

  get channel(): RequestChannel {
    return this;
  }

  notify(method: string, params: Record<string, unknown>): void {
    this.sink.relate({ jsonrpc: '2.0', method, params });
  }

  request(method: string): Promise<Record<string, unknown>> {
    return Promise.reject(new McpError(ErrorCode.ConnectionClosed, `"${method}" cannot be sent: a request served alone has no channel to ask its client on`));
  }

  /** Logs the request's client asked for (its `_meta` log level), within the rate limit of a session. */
  log(scope: RequestScope, level: LoggingLevel, data: unknown, logger: string | undefined): void {
    if (!passes(level, scope.logLevel ?? this.host.defaultLogLevel)) return;
    if (!(this.logLimiter ??= new RateLimiter(this.host.logRateLimit, this.host.logRateLimit * 2)).take()) return;
    this.notify('notifications/message', logger === undefined ? { level, data } : { level, logger, data });
  }

  started(_id: RequestId, running: Running): void {
    this.sink.started((reason) => {
      running.cancelled = true;
      running.ctx.cancel(reason);
    });
  }

  ended(): void {}
}

/**
 * Serves one request that arrived without a session (2026-07-28 over HTTP): in the era its
 * params name, whose codec refuses it when it needs a session. Observers hear of it as of any.
 */
export function serveAlone(host: AloneHost, request: JsonRpcRequest, info: MessageInfo, sink: AloneSink): Answer {
  const params = request.params ?? {};
  const codec = codecOf(params);
  const alone = new AloneRequest(host, sink);
  const principal = info.principal;
  const toRun = { source: alone, codec, message: request, params, principal, httpRequest: info.request, clientAddress: info.clientAddress, tracker: alone };
  if (!host.observers.active) return runRequest(host, toRun);
  const hear = host.observers.request({
    id: request.id,
    method: request.method,
    known: host.dispatcher.routeOf(request.method) !== undefined,
    params,
    protocolVersion: codec.versionOf(alone, params),
    sessionId: undefined,
    principal,
    networkTransport: 'tcp',
    clientAddress: info.clientAddress,
  });
  return host.observers.watch(request.method, hear, () => runRequest(host, toRun), undefined);
}
