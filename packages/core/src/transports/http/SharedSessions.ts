import type { ClusterMessage, ClusterOptions, SessionRecord } from '../../cluster';
import type { JsonRpcMessage, RequestId } from '../../protocol';
import type { Session } from '../../session';
import type { HttpSessionTransport } from './HttpSessionTransport';

/** A server that is one replica of a cluster, as the HTTP side sees it. */
export interface ClusterMember {
  readonly options: ClusterOptions;
  readonly replicaId: string;
  /** Resolves once this replica hears the others. */
  readonly ready: Promise<void>;
  reportError(what: string, error: unknown): void;
}

/** The sessions topic: every replica hears of session updates, ends, stream moves and client notifications. */
const SESSIONS_TOPIC = 'sessions';

type SessionEvent =
  | { kind: 'record'; origin: string; record: SessionRecord }
  | { kind: 'ended'; origin: string; id: string }
  | { kind: 'stream'; origin: string; id: string; streamId: string; at?: number }
  | { kind: 'recorded'; origin: string; id: string; streamId: string }
  | { kind: 'notify'; origin: string; id: string; messages: JsonRpcMessage[] };

/** The topic of one replica: answers from clients to the requests it sent. */
export function replicaTopic(replicaId: string): string {
  return `replica:${replicaId}`;
}

/**
 * Handshake-era sessions shared by the replicas of a cluster: each replica keeps a local copy
 * of the sessions it serves, made from the shared record when a request for an unknown session
 * arrives; changes are saved and announced, so every copy follows. A client's answer to a
 * request another replica sent is routed there; its notifications reach every copy.
 */
export class SharedSessions {
  private readonly touched = new Map<string, number>();
  /** The sessions of the local copies, to follow other replicas' changes. */
  private readonly sessions = new Map<string, Session>();
  /** The record each local copy last agreed with: what tells its own changes from others'. */
  private readonly bases = new Map<string, SessionRecord>();
  private readonly restoring = new Map<string, Promise<HttpSessionTransport | undefined>>();
  /** Sessions ended elsewhere while this replica was making its copy: the copy is dropped. */
  private readonly endedWhileRestoring = new Set<string>();
  private readonly unsubscribes: Array<Promise<() => Promise<void>>>;
  readonly ready: Promise<void>;

  constructor(
    private readonly member: ClusterMember,
    private readonly local: Map<string, HttpSessionTransport>,
    /** How long a session lives without requests: the record's time to live. */
    private readonly ttlMs: number,
    /** Makes the local copy of a recorded session. */
    private readonly restore: (record: SessionRecord) => Promise<{ transport: HttpSessionTransport; session: Session }>,
    private readonly reportError: (what: string, error: unknown) => void,
  ) {
    const { broadcaster } = member.options;
    this.unsubscribes = [
      broadcaster.subscribe(SESSIONS_TOPIC, (message) => this.onSessionEvent(message as SessionEvent)),
      broadcaster.subscribe(replicaTopic(member.replicaId), (message) => this.onAnswer(message)),
    ];
    this.unsubscribes.forEach((subscribed) => subscribed.catch((error) => reportError('cluster: subscribing failed', error)));
    this.ready = Promise.all([member.ready, ...this.unsubscribes]).then(() => undefined);
    // Awaited by the first request; until then a failure (reported above) must not go unhandled.
    this.ready.catch(() => undefined);
  }

  private get store() {
    return this.member.options.sessions;
  }

  /** Saves and announces every change of a session this replica serves; its answers wait for the save. */
  track(transport: HttpSessionTransport, session: Session): void {
    this.sessions.set(session.id, session);
    session.onChange = () => transport.holdUntil(this.save(transport, session));
  }

  /**
   * Saves what this copy changed and tells the other replicas. Changes another replica saved
   * meanwhile are kept: this copy's own changes (against the record it last agreed with) are
   * applied to the stored record, and the copy takes the result.
   */
  async save(transport: HttpSessionTransport, session: Session): Promise<void> {
    if (session.state !== 'initializing' && session.state !== 'ready') return;
    const local = recordOf(session, transport.owner);
    const base = this.bases.get(session.id);
    try {
      let merged: SessionRecord;
      let others = false;
      for (let attempt = 1; ; attempt++) {
        // A first save has nothing to merge with, unless it lost a race: then it reads too.
        const stored = base || attempt > 1 ? await this.store.get(session.id) : undefined;
        merged = local;
        if (stored && base && (stored.version ?? 0) > (base.version ?? 0)) merged = merge(base, local, stored);
        // No record agreed on yet: this copy's subscriptions join the stored ones, its log level wins.
        else if (stored && !base) merged = merge({ ...stored, subscriptions: [] }, local, stored);
        others = merged !== local;
        merged = { ...merged, version: Math.max(stored?.version ?? 0, base?.version ?? 0) + 1 };
        if (await this.write(merged, stored?.version)) break;
        // Another replica saved this session since it was read: merge into its record and try again.
        if (attempt === MAX_SAVE_ATTEMPTS) throw new Error(`the session changed on other replicas ${MAX_SAVE_ATTEMPTS} times while this one saved it`);
      }
      this.bases.set(session.id, merged);
      this.touched.set(session.id, Date.now());
      if (others) follow(session, transport, merged);
      await this.publish({ kind: 'record', origin: this.member.replicaId, record: merged });
    } catch (error) {
      this.reportError(`cluster: saving session ${session.id} failed`, error);
    }
  }

  /** Writes a record if the stored one is still `expectedVersion` (compare-and-set), or at once where the store cannot compare. */
  private async write(record: SessionRecord, expectedVersion: number | undefined): Promise<boolean> {
    if (this.store.replace) return this.store.replace(record, this.ttlMs, expectedVersion);
    await this.store.set(record, this.ttlMs);
    return true;
  }

  /** Saves the local copy of a session (its owner changed). */
  async saveCopy(id: string): Promise<void> {
    const transport = this.local.get(id);
    const session = this.sessions.get(id);
    if (transport && session) await this.save(transport, session);
  }

  /**
   * The local copy of a session: kept, or made from its record. Its record's life is extended
   * now and then (a fraction of its time to live), not on every request. Undefined when the
   * session is unknown or ended.
   */
  async find(id: string): Promise<HttpSessionTransport | undefined> {
    const known = this.local.get(id);
    if (known) {
      const last = this.touched.get(id) ?? 0;
      if (Date.now() - last < Math.min(this.ttlMs / 4, 60_000)) return known;
      this.touched.set(id, Date.now());
      let alive: boolean;
      try {
        alive = await this.store.touch(id, this.ttlMs);
      } catch (error) {
        // The store does not answer: this copy serves on; the record's life is extended next time.
        this.reportError(`cluster: extending session ${id} failed`, error);
        return known;
      }
      if (alive) return known;
      this.forget(id);
      return undefined;
    }
    let restoring = this.restoring.get(id);
    if (!restoring) {
      restoring = this.restoreCopy(id).finally(() => {
        this.restoring.delete(id);
        this.endedWhileRestoring.delete(id);
      });
      this.restoring.set(id, restoring);
    }
    return restoring;
  }

  private async restoreCopy(id: string): Promise<HttpSessionTransport | undefined> {
    const record = await this.store.get(id);
    if (!record) return undefined;
    const { transport, session } = await this.restore(record);
    if (this.endedWhileRestoring.delete(id)) {
      await transport.close();
      return undefined;
    }
    this.bases.set(id, record);
    this.track(transport, session);
    this.local.set(id, transport);
    this.touched.set(id, Date.now());
    return transport;
  }

  /** Ends a session everywhere (DELETE). */
  async end(id: string): Promise<void> {
    this.forget(id);
    await this.store.delete(id);
    await this.publish({ kind: 'ended', origin: this.member.replicaId, id });
  }

  /** True when the record still exists (for a local copy idle here but maybe busy elsewhere). */
  async exists(id: string): Promise<boolean> {
    return (await this.store.get(id)) !== undefined;
  }

  /** Forgets the local copy of a session, leaving the record to the other replicas. */
  forget(id: string): void {
    this.touched.delete(id);
    this.sessions.delete(id);
    this.bases.delete(id);
    const transport = this.local.get(id);
    this.local.delete(id);
    void transport?.close();
  }

  /** This replica now holds the session's stream: the others end theirs. */
  streamOpened(id: string, streamId: string): void {
    void this.publish({ kind: 'stream', origin: this.member.replicaId, id, streamId, at: Date.now() });
  }

  /** This replica recorded an event on a session's stream: the replica holding the stream reads it back. */
  streamRecorded(id: string, streamId: string): void {
    void this.publish({ kind: 'recorded', origin: this.member.replicaId, id, streamId });
  }

  /**
   * Of the messages a client POSTed, routes answers to requests another replica sent there and
   * copies notifications to every replica; returns what this replica handles itself.
   */
  dispatch(id: string, messages: JsonRpcMessage[]): JsonRpcMessage[] {
    const mine: JsonRpcMessage[] = [];
    const notifications: JsonRpcMessage[] = [];
    for (const message of messages) {
      const asker = 'method' in message ? undefined : askerOf((message as { id?: RequestId }).id);
      if (asker !== undefined && asker !== this.member.replicaId) {
        void this.publishTo(asker, { id, message });
        continue;
      }
      mine.push(message);
      if ('method' in message && !('id' in message) && message.method !== 'notifications/initialized') notifications.push(message);
    }
    if (notifications.length > 0) void this.publish({ kind: 'notify', origin: this.member.replicaId, id, messages: notifications });
    return mine;
  }

  async close(): Promise<void> {
    for (const subscribed of this.unsubscribes) {
      try {
        await (await subscribed)();
      } catch {
        // already reported when subscribing; closing goes on
      }
    }
  }

  private onSessionEvent(event: SessionEvent): void {
    if (event.origin === this.member.replicaId) return;
    switch (event.kind) {
      case 'record': {
        const { record } = event;
        const transport = this.local.get(record.id);
        const session = this.sessions.get(record.id);
        const base = this.bases.get(record.id);
        // Messages may cross: an older record than the one this copy has is stale.
        if (!transport || !session || (base && (record.version ?? 0) <= (base.version ?? 0))) return;
        this.bases.set(record.id, record);
        follow(session, transport, record);
        this.touched.set(record.id, Date.now());
        return;
      }
      case 'ended':
        if (this.local.has(event.id)) this.forget(event.id);
        else if (this.restoring.has(event.id)) this.endedWhileRestoring.add(event.id);
        return;
      case 'stream':
        this.local.get(event.id)?.dropStream(typeof event.at === 'number' ? event.at : undefined);
        return;
      case 'recorded':
        this.local.get(event.id)?.recordedElsewhere(event.streamId);
        return;
      case 'notify':
        this.local.get(event.id)?.deliver(event.messages.length === 1 ? event.messages[0] : event.messages);
        return;
    }
  }

  private onAnswer(message: ClusterMessage): void {
    const { id, message: answer } = message as { id: string; message: JsonRpcMessage };
    this.local.get(id)?.deliver(answer);
  }

  private async publish(event: SessionEvent): Promise<void> {
    try {
      await this.member.options.broadcaster.publish(SESSIONS_TOPIC, event as unknown as ClusterMessage);
    } catch (error) {
      this.reportError('cluster: publishing a session event failed', error);
    }
  }

  private async publishTo(replicaId: string, message: ClusterMessage): Promise<void> {
    try {
      await this.member.options.broadcaster.publish(replicaTopic(replicaId), message);
    } catch (error) {
      this.reportError(`cluster: routing an answer to replica ${replicaId} failed`, error);
    }
  }
}

function recordOf(session: Session, owner: string | undefined): SessionRecord {
  const record: SessionRecord = {
    id: session.id,
    state: session.state === 'ready' ? 'ready' : 'initializing',
    protocolVersion: session.protocolVersion,
    clientCapabilities: session.clientCapabilities,
    subscriptions: [...session.subscriptions],
  };
  if (session.clientInfo !== undefined) record.clientInfo = session.clientInfo;
  if (session.logLevel !== undefined) record.logLevel = session.logLevel;
  if (owner !== undefined) record.owner = owner;
  return record;
}

/** Rounds of read, merge and compare-and-set one save may take before it gives up (and reports). */
const MAX_SAVE_ATTEMPTS = 5;

/** The stored record with this copy's own changes (local against base) applied to it. */
function merge(base: SessionRecord, local: SessionRecord, stored: SessionRecord): SessionRecord {
  const merged: SessionRecord = { ...stored, subscriptions: [...stored.subscriptions] };
  if (local.state === 'ready') merged.state = 'ready';
  if (local.logLevel !== base.logLevel) merged.logLevel = local.logLevel;
  const before = new Set(base.subscriptions);
  const now = new Set(local.subscriptions);
  const subscriptions = new Set(stored.subscriptions);
  for (const uri of now) if (!before.has(uri)) subscriptions.add(uri);
  for (const uri of before) if (!now.has(uri)) subscriptions.delete(uri);
  merged.subscriptions = [...subscriptions];
  merged.owner = stored.owner ?? local.owner;
  if (merged.owner === undefined) delete merged.owner;
  if (merged.logLevel === undefined) delete merged.logLevel;
  return merged;
}

/** Takes what may change during a session from a record; an owner, once known, stays. */
function follow(session: Session, transport: HttpSessionTransport, record: SessionRecord): void {
  if (record.state === 'ready' && session.state === 'initializing') session.state = 'ready';
  session.logLevel = record.logLevel;
  session.subscriptions.clear();
  for (const uri of record.subscriptions) session.subscriptions.add(uri);
  if (record.owner !== undefined) transport.owner = record.owner;
}

/** The replica that sent a request, from its id (`<replica>:<n>`); undefined for ids without one. */
function askerOf(id: RequestId | undefined): string | undefined {
  if (typeof id !== 'string') return undefined;
  const colon = id.lastIndexOf(':');
  return colon > 0 ? id.slice(0, colon) : undefined;
}
