import type { OutgoingMessage } from '../protocol';
import type { Transport } from '../protocol';

/**
 * One end of an in-process channel. Messages are delivered asynchronously (as over a real
 * pipe) and structured-cloned, so neither side can mutate what the other holds.
 */
export class InMemoryTransport implements Transport {
  private peer: InMemoryTransport | undefined;
  private started = false;
  private closed = false;
  private readonly backlog: unknown[] = [];

  onmessage?: (message: unknown) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;

  /** Two connected ends: give one to the server and the other to a client. */
  static createLinkedPair(): [InMemoryTransport, InMemoryTransport] {
    const a = new InMemoryTransport();
    const b = new InMemoryTransport();
    a.peer = b;
    b.peer = a;
    return [a, b];
  }

  async start(): Promise<void> {
    this.started = true;
    for (const message of this.backlog.splice(0)) this.onmessage?.(message);
  }

  async send(message: OutgoingMessage): Promise<void> {
    if (this.closed || !this.peer) throw new Error('InMemoryTransport is closed');
    this.peer.deliver(structuredClone(message));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const peer = this.peer;
    this.peer = undefined;
    this.onclose?.();
    await peer?.close();
  }

  private deliver(message: unknown): void {
    queueMicrotask(() => {
      if (this.closed) return;
      if (this.started) this.onmessage?.(message);
      else this.backlog.push(message);
    });
  }
}
