/** Which change notifications a listener wants (the `notifications` filter of `subscriptions/listen`). */
export interface ChangeFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  resourceSubscriptions?: readonly string[];
}

export interface ChangeListener {
  readonly filter: ChangeFilter;
  /** For listeners whose resource subscriptions change over time (handshake-era sessions). */
  wantsResource?(uri: string): boolean;
  /** `eventKey` names a change every replica of a cluster delivers (see TransportSendOptions). */
  deliver(method: string, params: Record<string, unknown>, eventKey?: string): void;
  /** The server is closing: the listener ends gracefully. */
  end(): void;
  /** Kept by endAll (the server's own listener for its sessions, which a reused server still needs). */
  readonly persistent?: boolean;
}

const FILTER_OF: Record<string, keyof ChangeFilter> = {
  'notifications/tools/list_changed': 'toolsListChanged',
  'notifications/prompts/list_changed': 'promptsListChanged',
  'notifications/resources/list_changed': 'resourcesListChanged',
};

/**
 * The one path of the server's change notifications (list_changed, resources/updated) to
 * whoever listens: handshake-era sessions and 2026-07-28 `subscriptions/listen` streams alike,
 * each by its own filter.
 */
export class ChangeBroadcaster {
  private readonly listeners = new Set<ChangeListener>();

  /** `heard`: told of every resource update, whether a listener wants it or not (the server's observers). */
  constructor(private readonly heard?: (uri: string) => void) {}

  /** Adds a listener; returns the function that removes it. */
  listen(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  listChanged(method: string, eventKey?: string): void {
    const wanted = FILTER_OF[method];
    for (const listener of this.listeners) if (listener.filter[wanted]) listener.deliver(method, {}, eventKey);
  }

  resourceUpdated(uri: string, eventKey?: string): void {
    this.heard?.(uri);
    for (const listener of this.listeners) {
      const wanted = listener.filter.resourceSubscriptions?.includes(uri) || listener.wantsResource?.(uri);
      if (wanted) listener.deliver('notifications/resources/updated', { uri }, eventKey);
    }
  }

  /** Ends every listener (server shutdown). */
  endAll(): void {
    const ending = [...this.listeners].filter((listener) => !listener.persistent);
    for (const listener of ending) {
      this.listeners.delete(listener);
      listener.end();
    }
  }
}
