import type { ClusterMessage, ClusterOptions } from '../cluster';
import type { LoggingLevel } from '../session';
import { randomToken } from '../platform';

/** What one replica tells the others of: the changes and logs every client must hear. */
export type ClusterChange =
  | { kind: 'list'; method: string }
  | { kind: 'resource'; uri: string }
  | { kind: 'log'; level: LoggingLevel; data: unknown; logger?: string };

const CHANGES_TOPIC = 'changes';

/**
 * A server's place in its cluster: its replica id, and the path of change notifications and
 * server logs to and from the other replicas (whose clients must hear them too).
 */
export class ClusterLink {
  private replicaName: string | undefined;
  private subscribed: Promise<() => Promise<void>> | undefined;
  private published = 0;
  /** Makes this process's event keys its own: a restarted replica keeps its id but counts from 0 again. */
  private incarnation: string | undefined;

  constructor(
    readonly options: ClusterOptions,
    /** A change from another replica, with the key that names it on every replica. */
    private readonly onRemote: (change: ClusterChange, eventKey: string | undefined) => void,
    readonly reportError: (what: string, error: unknown) => void,
  ) {
    this.replicaName = options.replicaId;
  }

  /** This replica's name; a random one is made when first needed (a constructor must not ask for random values). */
  get replicaId(): string {
    return (this.replicaName ??= randomToken(6).replace(/[^A-Za-z0-9]/g, 'x'));
  }

  /** Starts hearing the other replicas (once); resolves when it does. */
  get ready(): Promise<void> {
    this.subscribed ??= this.options.broadcaster.subscribe(CHANGES_TOPIC, (message) => {
      if (message.origin === this.replicaId) return; // delivered here already
      try {
        // A replica of an older version sends no key: its changes are recorded as they come.
        const eventKey = typeof message.key === 'string' ? message.key : undefined;
        this.onRemote(message.change as ClusterChange, eventKey);
      } catch (error) {
        this.reportError('cluster: delivering a change failed', error);
      }
    });
    return this.subscribed.then(() => undefined);
  }

  /**
   * Tells the other replicas; a failure is reported, never thrown (local clients are told
   * anyway). Returns the key that names the change on every replica, for local delivery.
   */
  publish(change: ClusterChange): string {
    this.incarnation ??= randomToken(6).replace(/[^A-Za-z0-9]/g, 'x');
    const key = `${this.replicaId}:${this.incarnation}:${this.published++}`;
    const message: ClusterMessage = { origin: this.replicaId, key, change };
    try {
      this.options.broadcaster.publish(CHANGES_TOPIC, message).catch((error) => this.reportError('cluster: publishing a change failed', error));
    } catch (error) {
      this.reportError('cluster: publishing a change failed', error);
    }
    return key;
  }

  async close(): Promise<void> {
    const subscribed = this.subscribed;
    this.subscribed = undefined;
    if (subscribed) await (await subscribed.catch(() => async () => undefined))();
  }
}
