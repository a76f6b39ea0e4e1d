import { DefinitionError } from '../errors';

interface Entry<T> {
  item: T;
  enabled: boolean;
  /** Shown only while this other name has a registration (a tool made from it). */
  follows: string | undefined;
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
 * A name can be covered (`cover`, `hide`): what is registered under it is never shown, whatever
 * is registered there later, until the cover is lifted; a cover may show another item in its
 * place. An item can follow another name: it is shown only while that name has a registration.
 */
export class Registry<T> {
  private readonly entries = new Map<string, Entry<T>>();
  /** Covered names → the item standing in for the registration, and whether it is shown. */
  private readonly covers = new Map<string, { item: T | undefined; shown: boolean }>();
  private readonly listeners = new Set<() => void>();
  private snapshot: Listed<T>[] | undefined;
  private items: T[] | undefined;
  private changeScheduled = false;
  private nextSeq = 0;
  /** Bumped synchronously on every change, so caches can tell they are stale. */
  revision = 0;

  constructor(readonly kind: string) {}

  /** Registers `item`; with `follows`, it is shown only while that name has a registration. */
  add(name: string, item: T, origin: string, follows?: string): void {
    if (this.entries.has(name)) {
      throw new DefinitionError('DUPLICATE_NAME', `${origin}: a ${this.kind} named "${name}" is already registered; give one of them another name`);
    }
    this.entries.set(name, { item, enabled: true, seq: this.nextSeq++, follows });
    this.changed();
  }

  /** The enabled item with that name, as clients see it (a cover's item, or none). */
  get(name: string): T | undefined {
    const entry = this.entries.get(name);
    if (!entry?.enabled) return undefined;
    // The common case, on every call: nothing covered, nothing followed.
    if (this.covers.size === 0 && entry.follows === undefined) return entry.item;
    if (!this.present(entry)) return undefined;
    const cover = this.covers.get(name);
    return cover ? (cover.shown ? cover.item : undefined) : entry.item;
  }

  /** Whether the item registered under `name` is enabled (covered or not). */
  isEnabled(name: string): boolean {
    return this.entries.get(name)?.enabled === true;
  }

  /**
   * Hides whatever is registered under `name`, now and after any re-registration, and shows
   * `item` in its place while something is registered there; `uncover` lifts it.
   */
  cover(name: string, item: T): void {
    this.covers.set(name, { item, shown: true });
    this.changed();
  }

  /** Hides whatever is registered under `name`, and a cover's item too (`coveredBy` still has it). */
  hide(name: string): void {
    const cover = this.covers.get(name);
    if (cover) cover.shown = false;
    else this.covers.set(name, { item: undefined, shown: false });
    this.changed();
  }

  /** Lifts the cover of `name`: what is registered there is shown again. */
  uncover(name: string): void {
    if (this.covers.delete(name)) this.changed();
  }

  /** The item a cover puts in place of the registration under `name`, shown or hidden. */
  coveredBy(name: string): T | undefined {
    return this.covers.get(name)?.item;
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
    for (const [name, entry] of this.entries) {
      if (!entry.enabled || !this.present(entry)) continue;
      const cover = this.covers.get(name);
      if (!cover) listed.push({ item: entry.item, seq: entry.seq });
      else if (cover.shown) listed.push({ item: cover.item!, seq: entry.seq });
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
    for (const [name, entry] of this.entries) {
      if (!this.present(entry)) continue;
      const cover = this.covers.get(name);
      if (!cover) all.push({ name, item: entry.item, enabled: entry.enabled });
      else if (cover.shown) all.push({ name, item: cover.item!, enabled: entry.enabled });
    }
    return all;
  }

  /** Every registration as registered (covered, following a name that is gone, or not), with the name it follows. */
  registered(): Array<{ name: string; item: T; follows: string | undefined }> {
    return [...this.entries].map(([name, { item, follows }]) => ({ name, item, follows }));
  }

  /** Whether every name in an entry's chain of followed names has a registration. */
  private present(entry: Entry<T>): boolean {
    for (let follows = entry.follows, steps = 0; follows !== undefined; steps++) {
      const followed = this.entries.get(follows);
      if (!followed || steps > this.entries.size) return false;
      follows = followed.follows;
    }
    return true;
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
