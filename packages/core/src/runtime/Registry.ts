import { DefinitionError } from '../errors';

interface Entry<T> {
  item: T;
  enabled: boolean;
  /** Registration order; never reused, so a position in the list outlives changes to it. */
  seq: number;
}

/** An enabled item with its registration sequence number. */
export interface Listed<T> {
  readonly item: T;
  readonly seq: number;
}

/**
 * Named items in registration order, with enable/disable/remove at run time. Listeners hear
 * about changes once per tick, however many changes that tick made.
 */
export class Registry<T> {
  private readonly entries = new Map<string, Entry<T>>();
  private readonly listeners = new Set<() => void>();
  private snapshot: Listed<T>[] | undefined;
  private items: T[] | undefined;
  private changeScheduled = false;
  private nextSeq = 0;
  /** Bumped synchronously on every change, so caches can tell they are stale. */
  revision = 0;

  constructor(readonly kind: string) {}

  add(name: string, item: T, origin: string): void {
    if (this.entries.has(name)) {
      throw new DefinitionError('DUPLICATE_NAME', `${origin}: a ${this.kind} named "${name}" is already registered; give one of them another name`);
    }
    this.entries.set(name, { item, enabled: true, seq: this.nextSeq++ });
    this.changed();
  }

  /** The enabled item with that name. */
  get(name: string): T | undefined {
    const entry = this.entries.get(name);
    return entry?.enabled ? entry.item : undefined;
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  enable(name: string): boolean {
    return this.setEnabled(name, true);
  }

  disable(name: string): boolean {
    return this.setEnabled(name, false);
  }

  remove(name: string): boolean {
    const removed = this.entries.delete(name);
    if (removed) this.changed();
    return removed;
  }

  /** Removes `name` when it still holds `item` (not an item registered under that name since). */
  removeIfHolds(name: string, item: T): boolean {
    return this.entries.get(name)?.item === item && this.remove(name);
  }

  /** The enabled items, in registration order. The array is shared until the next change. */
  list(): readonly T[] {
    return (this.items ??= this.listed().map((e) => e.item));
  }

  /** The enabled items with their sequence numbers, ascending. Shared until the next change. */
  listed(): readonly Listed<T>[] {
    return (this.snapshot ??= [...this.entries.values()].filter((e) => e.enabled).map(({ item, seq }) => ({ item, seq })));
  }

  /** The item with that name, enabled or not. */
  itemNamed(name: string): T | undefined {
    return this.entries.get(name)?.item;
  }

  /** Every item, enabled or not, by name, in registration order. */
  all(): Array<{ name: string; item: T; enabled: boolean }> {
    return [...this.entries].map(([name, { item, enabled }]) => ({ name, item, enabled }));
  }

  /** The highest sequence number handed out so far, or -1. */
  get lastSeq(): number {
    return this.nextSeq - 1;
  }

  get size(): number {
    return this.list().length;
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private setEnabled(name: string, enabled: boolean): boolean {
    const entry = this.entries.get(name);
    if (!entry) return false;
    if (entry.enabled !== enabled) {
      entry.enabled = enabled;
      this.changed();
    }
    return true;
  }

  private changed(): void {
    this.snapshot = undefined;
    this.items = undefined;
    this.revision++;
    if (this.changeScheduled || this.listeners.size === 0) return;
    this.changeScheduled = true;
    queueMicrotask(() => {
      this.changeScheduled = false;
      for (const listener of this.listeners) listener();
    });
  }
}
