import type { Icon } from '../metadata';
import type { Revision } from '../protocol';

/** Options every listed definition (tool, resource, prompt) may carry. */
interface Describable {
  title?: string;
  description?: string;
  icons?: Icon[];
  _meta?: Record<string, unknown>;
}

/**
 * Copies the descriptive fields a revision can carry onto a listing entry: `title` and
 * `_meta` from 2025-06-18, `icons` from 2025-11-25.
 */
export function describeFor(revision: Revision, entry: Record<string, unknown>, options: Describable): Record<string, unknown> {
  if (revision.titlesAndStructuredOutput && options.title !== undefined) entry.title = options.title;
  if (options.description !== undefined) entry.description = options.description;
  if (revision.icons && options.icons) entry.icons = options.icons;
  if (revision.titlesAndStructuredOutput && options._meta) entry._meta = options._meta;
  return entry;
}

/** A per-revision cache for listing entries, which never change once built. */
export function perRevision(build: (revision: Revision) => Record<string, unknown>): (revision: Revision) => Record<string, unknown> {
  const cache = new Map<Revision, Record<string, unknown>>();
  return (revision) => {
    let entry = cache.get(revision);
    if (!entry) cache.set(revision, (entry = build(revision)));
    return entry;
  };
}
