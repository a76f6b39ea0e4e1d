import { InvalidParamsError } from '../errors';
import { echo, quote } from '../protocol';
import type { Listed, Registry } from './Registry';
import { base64urlToText, textToBase64url } from '../platform';

export interface Page<T> {
  items: readonly T[];
  nextCursor?: string;
}

/** Which items one caller may see; callers with the same `key` see the same. */
export interface PageFilter<T> {
  readonly key: string;
  admits(item: T): boolean;
}

/** Pages kept at most, over every cursor and caller view; past it the cache starts again. */
const MAX_CACHED_PAGES = 1024;

/** Page size when the server sets none. */
export const DEFAULT_PAGE_SIZE = 100;

/**
 * Pages over a registry in registration order. A cursor names the last item handed out by
 * its sequence number, not by position, so adding or removing items between two page reads
 * neither skips nor repeats anything. Pages are cached until the registry changes; with a
 * filter (access rules), per set of callers who see the same items, not per request.
 */
export class Paginator<T> {
  private readonly cache = new Map<string, Page<T>>();
  private cachedRevision = -1;

  constructor(
    private readonly kind: string,
    private readonly registry: Registry<T>,
    /** Items per page; `false` sends the whole list at once. */
    private readonly pageSize: number | false = DEFAULT_PAGE_SIZE,
  ) {}

  page(cursor: unknown, filter?: PageFilter<T>): Page<T> {
    if (this.cachedRevision !== this.registry.revision || this.cache.size >= MAX_CACHED_PAGES) {
      this.cache.clear();
      this.cachedRevision = this.registry.revision;
    }
    const position = cursor === undefined ? '' : this.checkCursor(cursor);
    const key = filter === undefined ? position : `${filter.key}\u0001${position}`;
    let page = this.cache.get(key);
    if (!page) {
      page = this.compute(position === '' ? -1 : this.decode(position), filter);
      this.cache.set(key, page);
    }
    return page;
  }

  private compute(afterSeq: number, filter: PageFilter<T> | undefined): Page<T> {
    const all = this.registry.listed();
    const listed = filter === undefined ? all : all.filter((entry) => filter.admits(entry.item));
    const start = firstAfter(listed, afterSeq);
    if (this.pageSize === false) return { items: listed.slice(start).map((e) => e.item) };
    const slice = listed.slice(start, start + this.pageSize);
    const page: Page<T> = { items: slice.map((e) => e.item) };
    if (start + this.pageSize < listed.length) page.nextCursor = this.encode(slice[slice.length - 1].seq);
    return page;
  }

  private encode(seq: number): string {
    return textToBase64url(`${this.kind}:${seq}`);
  }

  private decode(cursor: string): number {
    return Number((base64urlToText(cursor) ?? '').slice(this.kind.length + 1));
  }

  /** Returns the cursor when it is one this paginator could have issued; else -32602. */
  private checkCursor(cursor: unknown): string {
    if (typeof cursor === 'string' && /^[A-Za-z0-9_-]{1,64}$/.test(cursor)) {
      const text = base64urlToText(cursor) ?? '';
      const prefix = `${this.kind}:`;
      const seq = text.startsWith(prefix) ? text.slice(prefix.length) : '';
      if (/^(0|[1-9]\d{0,15})$/.test(seq) && Number(seq) <= this.registry.lastSeq && this.encode(Number(seq)) === cursor) {
        return cursor;
      }
    }
    throw new InvalidParamsError(`Invalid cursor for ${this.kind}: ${quote(cursor)}`, { cursor: echo(cursor) });
  }
}

/** Index of the first entry whose seq is greater than `seq` (entries ascend by seq). */
function firstAfter<T>(listed: readonly Listed<T>[], seq: number): number {
  let low = 0;
  let high = listed.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (listed[mid].seq <= seq) low = mid + 1;
    else high = mid;
  }
  return low;
}
