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

  constructor(
    readonly options: ClusterOptions,
    private readonly onRemote: (change: ClusterChange) => void,
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
        this.onRemote(message.change as ClusterChange);
      } catch (error) {
        this.reportError('cluster: delivering a change failed', error);
      }
    });
    return this.subscribed.then(() => undefined);
  }

  /** Tells the other replicas; a failure is reported, never thrown: local clients were told already. */
  publish(change: ClusterChange): void {
    const message: ClusterMessage = { origin: this.replicaId, change };
    this.options.broadcaster.publish(CHANGES_TOPIC, message).catch((error) => this.reportError('cluster: publishing a change failed', error));
  }

  async close(): Promise<void> {
    const subscribed = this.subscribed;
    this.subscribed = undefined;
    if (subscribed) await (await subscribed.catch(() => async () => undefined))();
  }
}
