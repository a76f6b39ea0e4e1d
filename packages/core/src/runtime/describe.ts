import type { Icon } from '../metadata';
import { featuresOf } from '../protocol';

/** Options every listed definition (tool, resource, prompt) may carry. */
interface Describable {
  title?: string;
  description?: string;
  icons?: Icon[];
  _meta?: Record<string, unknown>;
}

/**
 * Copies the descriptive fields a protocol version can carry onto a listing entry:
 * `title` and `_meta` from 2025-06-18, `icons` from 2025-11-25.
 */
export function describeFor(version: string, entry: Record<string, unknown>, options: Describable): Record<string, unknown> {
  const features = featuresOf(version);
  if (features.titlesAndStructuredOutput && options.title !== undefined) entry.title = options.title;
  if (options.description !== undefined) entry.description = options.description;
  if (features.icons && options.icons) entry.icons = options.icons;
  if (features.titlesAndStructuredOutput && options._meta) entry._meta = options._meta;
  return entry;
}

/** A per-version cache for listing entries, which never change once built. */
export function perVersion(build: (version: string) => Record<string, unknown>): (version: string) => Record<string, unknown> {
  const cache = new Map<string, Record<string, unknown>>();
  return (version) => {
    let entry = cache.get(version);
    if (!entry) cache.set(version, (entry = build(version)));
    return entry;
  };
}
