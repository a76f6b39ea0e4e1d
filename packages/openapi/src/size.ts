const sizes = new WeakMap<object, number>();

/**
 * The length of `JSON.stringify(value)`, counted without building the text; objects shared
 * between schemas (converted refs) are counted once and remembered.
 */
export function jsonSize(value: unknown): number {
  if (typeof value === 'string') return stringSize(value);
  if (value === null || typeof value !== 'object') return value === undefined ? 0 : (JSON.stringify(value)?.length ?? 0);
  const known = sizes.get(value);
  if (known !== undefined) return known;
  let size = 2;
  if (Array.isArray(value)) {
    for (const item of value) size += (item === undefined ? 4 : jsonSize(item)) + 1;
    if (value.length > 0) size--;
  } else {
    let count = 0;
    for (const key of Object.keys(value)) {
      const item = (value as Record<string, unknown>)[key];
      if (item === undefined) continue;
      size += stringSize(key) + 1 + jsonSize(item) + 1;
      count++;
    }
    if (count > 0) size--;
  }
  sizes.set(value, size);
  return size;
}

/** Most strings need no escapes: their JSON is two quotes longer. */
function stringSize(text: string): number {
  return NEEDS_ESCAPE.test(text) ? JSON.stringify(text).length : text.length + 2;
}

const NEEDS_ESCAPE = /["\\\u0000-\u001f\u2028\u2029\ud800-\udfff]/;
