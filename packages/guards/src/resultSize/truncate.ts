import { jsonBytes, prefixWithin } from './measure';

/** The note a truncated tool result ends with: what it was and what the limit is. */
export function truncationMarker(size: number, limit: number): string {
  return `…[truncated: the result was ${size} bytes, the limit is ${limit}]`;
}

/**
 * A tool result cut to at most `limit` bytes of JSON, or undefined when it cannot be:
 *
 * - every field but `content` is kept as it is (`structuredContent`, `isError`, `_meta`), so
 *   the result still meets the tool's output schema;
 * - content items are kept in order while they fit whole;
 * - the text item that crosses the limit is cut at a code point and ends with
 *   `\n` + the marker (`…[truncated: the result was N bytes, the limit is M]`); later items
 *   are dropped;
 * - when the item that crosses is not text (an image, a resource), or a text item whose other
 *   fields leave no room, it is dropped with the rest, and the marker is a text item of its own
 *   at the end (items before it dropped from the end until it fits);
 * - a result without a `content` array, or whose other fields alone leave no room for the
 *   marker, cannot be truncated.
 */
export function truncateToolResult(result: Record<string, unknown>, size: number, limit: number): Record<string, unknown> | undefined {
  const content = result.content;
  if (!Array.isArray(content)) return undefined;
  const marker = truncationMarker(size, limit);
  // The result's JSON is its shell (content: []) plus each kept item and a comma between two.
  let used = jsonBytes({ ...result, content: [] });
  const kept: unknown[] = [];
  const keptBytes: number[] = [];
  for (const item of content) {
    const bytes = elementBytes(item);
    const comma = kept.length > 0 ? 1 : 0;
    if (used + comma + bytes <= limit) {
      kept.push(item);
      keptBytes.push(bytes);
      used += comma + bytes;
      continue;
    }
    if (isText(item)) {
      const tail = `\n${marker}`;
      const room = limit - used - comma - elementBytes({ ...item, text: tail });
      if (room >= 0) return { ...result, content: [...kept, { ...item, text: prefixWithin(item.text, room) + tail }] };
    }
    break;
  }
  const note = { type: 'text', text: marker };
  const noteBytes = elementBytes(note);
  while (kept.length > 0 && used + 1 + noteBytes > limit) {
    kept.pop();
    used -= keptBytes.pop()! + (kept.length > 0 ? 1 : 0);
  }
  if (used + (kept.length > 0 ? 1 : 0) + noteBytes > limit) return undefined;
  return { ...result, content: [...kept, note] };
}

/** The bytes a value takes as an array element (undefined and functions are written `null` there). */
function elementBytes(value: unknown): number {
  return jsonBytes([value]) - 2;
}

function isText(item: unknown): item is { type: 'text'; text: string } {
  return typeof item === 'object' && item !== null && (item as { type?: unknown }).type === 'text' && typeof (item as { text?: unknown }).text === 'string';
}
