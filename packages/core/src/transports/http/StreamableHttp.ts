import { AccessDeniedError, DefinitionError, RateLimitedError, UnavailableError } from '../../errors';
import type { HttpStage } from '../../protocol';
import type { Endpoint, HttpServerHost, StreamableHttpOptions, StreamKind } from './endpoint';
import type { Exchange, RefusalHead } from './Exchange';
import { errorReply, HttpError, jsonReply } from './HttpReply';
import type { HttpReply } from './HttpReply';
import { pathOf } from './HttpRequest';
import type { IncomingRequest } from './HttpRequest';
import { LegacySseSessions } from './LegacySseSessions';
import { placeStages } from './pipeline';
import type { CoreStages, Stage } from './pipeline';
import type { HttpSecurityOptions } from './security';
import { StagedRequest } from './StagedRequest';
import { rateLimitedHead } from './rateLimited';
import type { BodyLimits } from './StagedRequest';
import { routeAlone } from './stages/alone';
import { authenticate, refusalHead } from './stages/authenticate';
import { answerReadiness, checkOrigin, onlyAt, refuseWhileClosing, refuseWhileClosingOrUnshared, serveDocuments } from './stages/gate';
import { serveLegacySse } from './stages/legacySse';
import { checkContentHeaders, checkMessages, onlyPost, readPayload } from './stages/post';
import { HttpSessions } from './stages/sessions';
import { refuseDelete, refuseStream, serveStateless } from './stages/stateless';

const NO_PLUGIN_STAGES: readonly HttpStage[] = [];

/**
 * Streamable HTTP, written once on the Fetch API's terms and served by the fetch and Node
 * adapters. A request goes through named stages, one after another, until one answers (see
 * `CORE_STAGES` in pipeline.ts): its host and origin are checked, it is authenticated, its body
 * read within the limits, and it is routed by era and method (a 2026-07-28 request alone, a
 * session's POST, GET or DELETE, a stateless POST, the legacy HTTP+SSE transport). Plugins'
 * stages run among them. The answer is a reply: JSON, or an event stream the adapter writes
 * as it comes.
 */
export class StreamableHttp implements Endpoint {
  readonly keepAliveMs: number;
  readonly refusal: RefusalHead;
  private readonly limits: BodyLimits;
  /** The `path` option, which plugins' stages read (`HttpStageRequest.endpointPath`). */
  private readonly endpointPath: string | undefined;
  private readonly legacy: LegacySseSessions | undefined;
  private readonly sessions: HttpSessions | undefined;
  /** The core's stages under this handler's options, made once. */
  private readonly core: CoreStages;
  /** The core's and the plugins' stages in order, placed again only when plugins add stages. */
  private stages: readonly Stage[] = [];
  private placedWith: readonly HttpStage[] | undefined;
  private closed = false;
  /** Requests being handled, and POST answers still being written: what close() waits for. */
  private inFlight = 0;

  constructor(
    readonly host: HttpServerHost,
    options: StreamableHttpOptions = {},
  ) {
    const security: HttpSecurityOptions = {
      allowedHosts: Array.isArray(options.allowedHosts) ? [...options.allowedHosts] : options.allowedHosts,
      allowedOrigins: Array.isArray(options.allowedOrigins) ? [...options.allowedOrigins] : options.allowedOrigins,
    };
    this.endpointPath = options.path;
    this.limits = { maxBodyBytes: options.maxBodyBytes ?? 4 * 1024 * 1024, bodyTimeoutMs: options.bodyTimeoutMs ?? 30_000 };
    const idleMs = options.sessionIdleTimeoutMs ?? 30 * 60_000;
    this.keepAliveMs = options.keepAliveMs ?? 15_000;
    const maxSessions = options.maxSessions ?? 1000;
    if (!(Number.isInteger(maxSessions) && maxSessions > 0)) {
      throw new DefinitionError('INVALID_OPTION', `maxSessions must be a positive integer, not ${String(options.maxSessions)}`);
    }
    if (!(Number.isInteger(this.keepAliveMs) && this.keepAliveMs > 0)) {
      throw new DefinitionError('INVALID_OPTION', `keepAliveMs must be a positive integer of milliseconds, not ${String(options.keepAliveMs)}`);
    }
    this.refusal = refusalHead(host);
    const legacy = options.legacySse === false ? undefined : new LegacySseSessions(host, options.legacySse ?? {}, (streamId, opened) => this.streamEvent(streamId, 'legacy', streamId, opened));
    this.legacy = legacy;
    const sessions = options.stateless ? undefined : new HttpSessions(this, { eventStore: options.eventStore, idleMs, maxSessions }, host.cluster);
    this.sessions = sessions;
    // Each stage as these options want it; a server without sessions has stages of its own in their place.
    this.core = {
      readiness: options.readinessPath === undefined ? undefined : answerReadiness(this, options.readinessPath),
      available: sessions?.shared ? refuseWhileClosingOrUnshared(this, sessions.shared) : refuseWhileClosing(this),
      documents: serveDocuments(host),
      origin: checkOrigin(security),
      path: options.path === undefined ? undefined : onlyAt(options.path, legacy),
      authenticate: authenticate(host, options.principal),
      'legacy-sse': legacy && serveLegacySse(legacy),
      get: sessions ? sessions.openStream : refuseStream,
      delete: sessions ? sessions.end : refuseDelete,
      method: onlyPost(sessions ? 'GET, POST, DELETE' : 'POST'),
      body: readPayload,
      headers: checkContentHeaders,
      alone: routeAlone(this),
      messages: checkMessages,
      stateless: sessions ? undefined : serveStateless(this),
      initialize: sessions?.initialize,
      session: sessions?.post,
    };
  }

  get closing(): boolean {
    return this.closed;
  }

  /** Answers one request. Never rejects: every failure is an answer. */
  async handle(incoming: IncomingRequest): Promise<HttpReply> {
    this.inFlight++;
    try {
      this.sessions?.sweepLater();
      const request = new StagedRequest(incoming, pathOf(incoming.url), this.limits, this.endpointPath);
      const stages = this.placed();
      for (let i = 0; i < stages.length; i++) {
        const answer = stages[i].run(request);
        const reply = answer instanceof Promise ? await answer : answer;
        if (reply !== undefined) return reply;
      }
      throw new Error('no HTTP stage answered the request');
    } catch (error) {
      if (error instanceof AccessDeniedError) return refusalReply(error, this.refusal(error.toJSON()));
      if (error instanceof RateLimitedError) return rateLimitedReply(error);
      if (error instanceof UnavailableError) {
        // A store the request needs to be routed (sessions, events) does not answer: try again later.
        this.host.reportError('an HTTP request could not be served', error);
        return errorReply(new HttpError(503, 'Service Unavailable: a store this server needs does not answer; try again later', -32000, { 'retry-after': String(error.retryAfterSec) }));
      }
      if (!(error instanceof HttpError)) this.host.reportError('an HTTP request failed', error);
      return errorReply(error);
    } finally {
      this.inFlight--;
    }
  }

  /** Stops taking requests, lets in-flight ones finish (up to `graceMs`), then closes every session. */
  async close(graceMs = 5_000): Promise<void> {
    this.closed = true;
    this.sessions?.stopSweeping();
    const deadline = Date.now() + graceMs;
    while ((this.inFlight > 0 || this.sessions?.busy) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await this.sessions?.close();
    await this.legacy?.close();
  }

  answer(exchange: Exchange): Promise<HttpReply> {
    if (!exchange.isDone) {
      this.inFlight++;
      void exchange.done.then(() => this.inFlight--);
    }
    return exchange.reply;
  }

  streamEvent(streamId: string, kind: StreamKind, sessionId: string | undefined, opened: boolean): void {
    const observers = this.host.observers;
    if (!observers.active) return;
    if (opened) observers.streamOpened({ streamId, kind, sessionId });
    else observers.streamClosed({ streamId, kind, sessionId });
  }

  /** The stages in order: placed again when plugins added stages since (the server hands a new array then). */
  private placed(): readonly Stage[] {
    const added = this.host.httpStages ?? NO_PLUGIN_STAGES;
    if (added !== this.placedWith) {
      this.stages = placeStages(this.core, added, (what, error) => this.host.reportError(what, error));
      this.placedWith = added;
    }
    return this.stages;
  }
}

/** A stage refused the caller for sending too many requests: 429 with `Retry-After`, before any later stage ran. */
function rateLimitedReply(error: RateLimitedError): HttpReply {
  const head = rateLimitedHead(error)!;
  return jsonReply(head.status, { jsonrpc: '2.0', error: error.toJSON() }, head.headers);
}

function refusalReply(error: AccessDeniedError, head: ReturnType<RefusalHead>): HttpReply {
  return jsonReply(head?.status ?? 403, { jsonrpc: '2.0', error: error.toJSON() }, head?.headers);
}
