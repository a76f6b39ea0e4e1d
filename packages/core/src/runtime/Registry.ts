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
 *
 * A name can be covered (`cover`): what is registered under it is never shown, whatever is
 * registered there later, until the cover is lifted; a cover may show another item in its place.
 */
export class Registry<T> {
  private readonly entries = new Map<string, Entry<T>>();
  /** Covered names → the item shown instead while one is registered there (none: hidden). */
  private readonly covers = new Map<string, { shown: T | undefined }>();
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

  /** The enabled item with that name, as clients see it (a cover's item, or none). */
  get(name: string): T | undefined {
    const entry = this.entries.get(name);
    if (!entry?.enabled) return undefined;
    const cover = this.covers.get(name);
    return cover ? cover.shown : entry.item;
  }

  /** Whether the item registered under `name` is enabled (covered or not). */
  isEnabled(name: string): boolean {
    return this.entries.get(name)?.enabled === true;
  }

  /**
   * Hides whatever is registered under `name`, now and after any re-registration; `shown`, when given, is shown in its place while something
   * is registered there. A new cover replaces the name's earlier one; `uncover` lifts it.
   */
  cover(name: string, shown?: T): void {
    this.covers.set(name, { shown });
    this.changed();
  }

  /** Lifts the cover of `name`: what is registered there is shown again. */
  uncover(name: string): void {
    if (this.covers.delete(name)) this.changed();
  }

  /** The item a cover shows under `name`, if one does. */
  coveredBy(name: string): T | undefined {
    return this.covers.get(name)?.shown;
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
    if (this.snapshot) return this.snapshot;
    const listed: Listed<T>[] = [];
    for (const [name, { item, enabled, seq }] of this.entries) {
      if (!enabled) continue;
      const cover = this.covers.get(name);
      if (!cover) listed.push({ item, seq });
      else if (cover.shown !== undefined) listed.push({ item: cover.shown, seq });
    }
    return (this.snapshot = listed);
  }

  /** The item registered with that name, enabled or not, covered or not. */
  itemNamed(name: string): T | undefined {
    return this.entries.get(name)?.item;
  }

  /**
   * Every item as shown, enabled or not, by name, in registration order: a cover's item in place
   * of the one it covers; a name covered with nothing shown is left out.
   */
  all(): Array<{ name: string; item: T; enabled: boolean }> {
    const all: Array<{ name: string; item: T; enabled: boolean }> = [];
    for (const [name, { item, enabled }] of this.entries) {
      const cover = this.covers.get(name);
      if (!cover) all.push({ name, item, enabled });
      else if (cover.shown !== undefined) all.push({ name, item: cover.shown, enabled });
    }
    return all;
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
