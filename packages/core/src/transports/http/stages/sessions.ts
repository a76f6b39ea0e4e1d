import { InMemoryEventStore } from '../../../cluster';
import type { EventStore } from '../../../cluster';
import { quote } from '../../../protocol';
import type { JsonRpcMessage } from '../../../protocol';
import type { Endpoint } from '../endpoint';
import { HttpError, NO_HEADERS } from '../HttpReply';
import type { HttpReply } from '../HttpReply';
import { HttpSessionTransport } from '../HttpSessionTransport';
import type { StageRun } from '../pipeline';
import { SharedSessions } from '../SharedSessions';
import type { ClusterMember } from '../SharedSessions';
import type { StagedRequest } from '../StagedRequest';
import { ACCEPTED } from './alone';
import { versionOf } from './post';

export interface SessionSettings {
  /** Where SSE events are kept for `Last-Event-ID` (the endpoint's option): false turns resumption off. */
  readonly eventStore: EventStore | false | undefined;
  /** Sessions with no request for this long are closed. */
  readonly idleMs: number;
  /** Most sessions kept at once. */
  readonly maxSessions: number;
}

/**
 * The handshake-era sessions of one handler and the stages that serve them: `get` (a session's
 * stream), `delete` (its end), `initialize` (a new one) and `session` (a POST to one). A
 * cluster's replica shares them with the other replicas.
 */
export class HttpSessions {
  private readonly sessions = new Map<string, HttpSessionTransport>();
  private readonly eventStore: EventStore | undefined;
  /** The sessions of the cluster this replica is one of, when it is. */
  readonly shared: SharedSessions | undefined;
  private sweeper: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly endpoint: Endpoint,
    private readonly settings: SessionSettings,
    private readonly cluster: ClusterMember | undefined,
  ) {
    this.eventStore = settings.eventStore === false ? undefined : (settings.eventStore ?? cluster?.options.events ?? new InMemoryEventStore());
    this.shared =
      cluster &&
      new SharedSessions(
        cluster,
        this.sessions,
        settings.idleMs,
        async (record) => {
          this.makeRoom();
          const transport = this.transportOf(record.id, record.owner);
          return { transport, session: await endpoint.host.connect(transport, { restore: record }) };
        },
        cluster.reportError,
      );
  }

  /** `get`: a session's stream, opened, or resumed after `Last-Event-ID`. */
  readonly openStream: StageRun = async (request) => {
    if (request.method !== 'GET') return undefined;
    if (!(request.headers.get('accept') ?? '').includes('text/event-stream')) {
      throw new HttpError(406, 'Not Acceptable: the client must accept text/event-stream');
    }
    const transport = await this.sessionOf(request);
    const headers = { 'mcp-session-id': transport.sessionId! };
    const lastEventId = request.headers.get('last-event-id');
    let reply: HttpReply | undefined;
    if (lastEventId !== null && lastEventId !== '') {
      reply = await transport.resume(lastEventId, headers);
      if (!reply) throw new HttpError(404, `Unknown or expired Last-Event-ID ${JSON.stringify(lastEventId)}`);
    } else {
      reply = transport.openStandalone(headers);
      if (!reply) throw new HttpError(409, 'Conflict: this session already has an open stream');
    }
    // The session's stream is where it was opened last: other replicas end theirs.
    if (this.shared && transport.hasStream) this.shared.streamOpened(transport.sessionId!, transport.streamId!);
    return reply;
  };

  /** `delete`: the session ends, here and on every replica. */
  readonly end: StageRun = async (request) => {
    if (request.method !== 'DELETE') return undefined;
    const transport = await this.sessionOf(request);
    if (this.shared) await this.shared.end(transport.sessionId!);
    this.sessions.delete(transport.sessionId!);
    await transport.close();
    return { status: 200, headers: NO_HEADERS };
  };

  /** `initialize`: a new session, kept only when the handshake succeeds. */
  readonly initialize: StageRun = async (request) => {
    if (!request.initialize) return undefined;
    this.makeRoom();
    const sessionId = crypto.randomUUID();
    const transport = this.transportOf(sessionId, request.principal?.subject);
    const session = await this.endpoint.host.connect(transport);
    this.shared?.track(transport, session);
    this.sessions.set(sessionId, transport);
    const exchange = transport.deliverRequests(request.payload, request.requestIds, { 'mcp-session-id': sessionId }, request.messageInfo());
    const reply = await this.endpoint.answer(exchange);
    // A refused initialize leaves no session behind.
    if (session.state === 'awaiting-initialize') {
      this.shared?.forget(sessionId);
      this.sessions.delete(sessionId);
      await transport.close();
    }
    return reply;
  };

  /** `session`: a POST to a session: its notifications delivered (202), or its requests answered. */
  readonly post: StageRun = async (request) => {
    const transport = await this.sessionOf(request);
    versionOf(request);
    const { requestIds } = request;
    let payload = request.payload;
    const info = request.messageInfo();
    // Answers to another replica's requests go there; notifications reach every replica.
    if (this.shared) payload = keepShape(payload, this.shared.dispatch(transport.sessionId!, request.messages as unknown as JsonRpcMessage[]));
    if (requestIds.length === 0) {
      if (payload !== undefined) transport.deliver(payload, info);
      // What the notifications changed (initialized) is saved before the client may go on elsewhere.
      if (this.shared) await transport.settled();
      return ACCEPTED;
    }
    const busy = requestIds.find((id) => transport.inProgress(id));
    if (busy !== undefined) throw new HttpError(409, `Invalid Request: request id ${quote(busy)} is already in use by a request in progress`, -32600);
    return this.endpoint.answer(transport.deliverRequests(payload, requestIds, NO_HEADERS, info));
  };

  /** Whether a session has a request in progress: what close() waits for. */
  get busy(): boolean {
    for (const transport of this.sessions.values()) if (transport.busy) return true;
    return false;
  }

  /**
   * Starts the sweeper of idle sessions at the first request, not before: a timer must not
   * start where the handler is made (a Worker's global scope).
   */
  sweepLater(): void {
    if (this.sweeper !== undefined) return;
    this.sweeper = setInterval(() => this.sweep(), Math.min(this.settings.idleMs, 60_000));
    (this.sweeper as { unref?: () => void }).unref?.();
  }

  stopSweeping(): void {
    clearInterval(this.sweeper);
  }

  /** Closes every session (this replica's copies), then stops following the cluster's. */
  async close(): Promise<void> {
    await Promise.all([...this.sessions.values()].map((s) => s.close()));
    this.sessions.clear();
    await this.shared?.close();
  }

  private transportOf(sessionId: string, owner: string | undefined): HttpSessionTransport {
    const shared = this.shared;
    const { host } = this.endpoint;
    return new HttpSessionTransport(sessionId, this.eventStore, () => this.sessions.delete(sessionId), {
      refusal: this.endpoint.refusal,
      owner,
      sharedStream: shared && this.eventStore ? { recorded: (streamId) => shared.streamRecorded(sessionId, streamId) } : undefined,
      onStream: host.observers.active ? (streamId, kind, opened) => this.endpoint.streamEvent(streamId, kind, sessionId, opened) : undefined,
    });
  }

  /** The session a request names in `Mcp-Session-Id`, if its caller may use it. */
  private async sessionOf(request: StagedRequest): Promise<HttpSessionTransport> {
    const id = request.headers.get('mcp-session-id');
    if (id === null || id === '') throw new HttpError(400, 'Bad Request: Mcp-Session-Id header is required');
    const transport = this.shared ? await this.shared.find(id) : this.sessions.get(id);
    if (!transport) throw new HttpError(404, 'Session not found: it never existed, ended or expired; initialize a new one');
    // A session id is no credential: only the subject that opened the session may use it.
    const owner = transport.owner;
    if (!transport.admits(request.principal?.subject)) throw new HttpError(403, 'Forbidden: this session belongs to another principal');
    if (this.shared && transport.owner !== owner) await this.shared.saveCopy(id);
    return transport;
  }

  /** At the cap, closes the session idle the longest; 503 when none is idle. */
  private makeRoom(): void {
    if (this.sessions.size < this.settings.maxSessions) return;
    let oldest: [string, HttpSessionTransport] | undefined;
    for (const entry of this.sessions) {
      if (!entry[1].busy && (!oldest || entry[1].lastActivity < oldest[1].lastActivity)) oldest = entry;
    }
    if (!oldest) throw new HttpError(503, `Service Unavailable: ${this.settings.maxSessions} sessions are busy; try again later`);
    if (this.shared) return this.shared.forget(oldest[0]); // only this replica's copy: the session goes on elsewhere
    this.sessions.delete(oldest[0]);
    void oldest[1].close();
  }

  private sweep(): void {
    const now = Date.now();
    for (const [id, transport] of this.sessions) {
      if (transport.busy || now - transport.lastActivity <= this.settings.idleMs) continue;
      if (!this.shared) {
        this.sessions.delete(id);
        void transport.close();
      } else if (!transport.hasStream) {
        this.shared.forget(id); // idle here; the record stays for the other replicas
      } else {
        // Quiet here, but its stream is here: it lives as long as the session does anywhere.
        transport.lastActivity = now;
        const shared = this.shared;
        void shared.exists(id).then(
          (exists) => exists || shared.forget(id),
          (error) => this.cluster!.reportError('cluster: reading a session failed', error),
        );
      }
    }
  }
}

/** What is left of a POST body once some messages went elsewhere: undefined when none is left. */
function keepShape(payload: unknown, kept: JsonRpcMessage[]): unknown {
  if (Array.isArray(payload)) return kept.length === payload.length ? payload : kept.length > 0 ? kept : undefined;
  return kept.length === 1 ? kept[0] : undefined;
}
