import type { ClusterOptions, SessionRecord } from '../cluster';
import type { SessionConnections } from '../features/rooms';
import type { Principal, Transport } from '../protocol';
import type { LoggingLevel, Session } from '../session';
import type { ChangeBroadcaster } from '../runtime/ChangeBroadcaster';
import { Connection } from '../runtime/Connection';
import type { ConnectionHost } from '../runtime/Connection';
import { createLogger, isLoggingLevel } from '../runtime/Logger';
import type { Logger } from '../runtime/Logger';
import { ClusterLink } from './ClusterLink';
import type { ClusterChange } from './ClusterLink';

/** Something that takes requests from outside and must stop before the connections close (an HTTP listener). */
export interface Listener {
  /** Stops taking new connections; resolves once the last one closed. */
  stop(): Promise<void>;
  /** Drops the connections still open once in-flight requests had their grace period. */
  drop(): void;
}

/** Something serving HTTP requests of this server (a handler of Node's or the Fetch API's): closed with it. */
export interface HttpHandlerLike {
  close(graceMs?: number): Promise<void>;
}

/**
 * The sessions of one server: its connections, the listeners and HTTP handlers that bring
 * them, the cluster it is a replica of, and what goes out to every session (change
 * notifications, server logs), here and on the other replicas.
 */
export class ServerSessions implements SessionConnections {
  /** Server log messages outside any request, to every initialized session (each by its own level) and every replica. */
  readonly log: Logger;
  private readonly connections = new Set<Connection>();
  private readonly listeners = new Set<Listener>();
  private readonly httpHandlers = new Set<HttpHandlerLike>();
  private link: ClusterLink | undefined;

  constructor(
    private readonly changes: ChangeBroadcaster,
    private readonly reportError: (what: string, error: unknown) => void,
  ) {
    this.log = createLogger((level, data, logger) => {
      const eventKey = this.publish(logger === undefined ? { kind: 'log', level, data } : { kind: 'log', level, data, logger });
      this.logToSessions(level, data, logger, eventKey);
    });
    changes.listen({
      filter: { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true },
      wantsResource: (uri) => [...this.readyConnections()].some((connection) => connection.session.subscriptions.has(uri)),
      deliver: (method, params, eventKey) => this.notifySessions(method, params, eventKey),
      end: () => undefined,
      persistent: true,
    });
  }

  /** The cluster this server is a replica of, once a plugin provided one. */
  get cluster(): ClusterLink | undefined {
    return this.link;
  }

  /** Joins the cluster a plugin provided: changes and logs go to and come from the other replicas. */
  joinCluster(options: ClusterOptions): ClusterLink {
    this.link = new ClusterLink(options, (change, eventKey) => this.applyRemoteChange(change, eventKey), this.reportError);
    return this.link;
  }

  /** Tells the other replicas of a change; the key that names it on every replica (none without a cluster). */
  publish(change: ClusterChange): string | undefined {
    return this.link?.publish(change);
  }

  /** Known once a cluster is provided: requests to clients carry this replica's name. */
  get requestIdPrefix(): string | undefined {
    return this.link ? `${this.link.replicaId}:` : undefined;
  }

  /** Live handshake-era sessions. */
  get live(): Session[] {
    return [...this.connections].map((connection) => connection.session);
  }

  /** Serves one client over the given transport; resolves once the transport has started. */
  async connect(host: ConnectionHost, transport: Transport, options: { assumeProtocolVersion?: string; principal?: Principal; restore?: SessionRecord }): Promise<Session> {
    void this.link?.ready.catch((error) => this.reportError('cluster: subscribing failed', error));
    const connection = new Connection(host, transport, options.principal);
    if (options.assumeProtocolVersion !== undefined) connection.assumeInitialized(options.assumeProtocolVersion);
    if (options.restore) connection.restore(options.restore);
    this.connections.add(connection);
    await connection.start();
    return connection.session;
  }

  onConnectionClosed(connection: Connection): void {
    this.connections.delete(connection);
  }

  /** The connection serving a ready handshake-era session here, for the messages of its tasks. */
  sessionConnection(id: string): Connection | undefined {
    for (const connection of this.connections) {
      if (connection.session.id === id && connection.session.state === 'ready' && connection.isOpen) return connection;
    }
    return undefined;
  }

  /** Takes requests from outside: stopped first when the server closes. */
  addListener(listener: Listener): void {
    this.listeners.add(listener);
  }

  addHttpHandler<H extends HttpHandlerLike>(handler: H): H {
    this.httpHandlers.add(handler);
    return handler;
  }

  /**
   * Listeners stop accepting, in-flight HTTP requests may finish (a few seconds at most), then
   * every connection closes and in-flight requests are cancelled; then the cluster link.
   */
  async close(): Promise<void> {
    const listeners = [...this.listeners];
    this.listeners.clear();
    const stopped = listeners.map((listener) => listener.stop());
    await Promise.all([...this.httpHandlers].map((handler) => handler.close()));
    this.httpHandlers.clear();
    for (const listener of listeners) listener.drop();
    await Promise.all([...this.connections].map((connection) => connection.close()));
    await Promise.all(stopped);
    await this.link?.close();
  }

  /** A change or log on another replica of the cluster, for this replica's clients. */
  private applyRemoteChange(change: ClusterChange, eventKey: string | undefined): void {
    if (change.kind === 'list') this.changes.listChanged(change.method, eventKey);
    else if (change.kind === 'resource') this.changes.resourceUpdated(change.uri, eventKey);
    else if (isLoggingLevel(change.level)) this.logToSessions(change.level, change.data, change.logger, eventKey);
  }

  private logToSessions(level: LoggingLevel, data: unknown, logger: string | undefined, eventKey: string | undefined): void {
    for (const connection of this.readyConnections()) connection.log(connection.session, level, data, logger, undefined, undefined, eventKey);
  }

  /**
   * Handshake-era sessions hear of changes only to lists they were told about at initialize,
   * and of updates only to the resources they subscribed to.
   */
  private notifySessions(method: string, params: Record<string, unknown>, eventKey: string | undefined): void {
    if (method === 'notifications/resources/updated') {
      for (const connection of this.readyConnections()) {
        if (connection.session.subscriptions.has(params.uri as string)) connection.notify(method, params, undefined, eventKey);
      }
      return;
    }
    const kind = method.split('/')[1];
    for (const connection of this.readyConnections()) {
      if (connection.session.declaredCapabilities[kind]) connection.notify(method, undefined, undefined, eventKey);
    }
  }

  private *readyConnections(): Iterable<Connection> {
    for (const connection of this.connections) if (connection.session.state === 'ready') yield connection;
  }
}
