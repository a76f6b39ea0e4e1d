/**
 * Sizes as the wire sees them: the UTF-8 bytes of a value's JSON. Measured without encoding the
 * text (no Buffer, no TextEncoder), so it costs one JSON.stringify and one pass over its chars,
 * and works on every runtime the server does.
 */

/** The UTF-8 bytes of `value`'s JSON (0 for a value JSON leaves out). */
export function jsonBytes(value: unknown): number {
  const json = JSON.stringify(value);
  return json === undefined ? 0 : utf8Bytes(json);
}

/**
 * An upper bound of the UTF-8 bytes of `value`'s JSON, found by walking it without writing any
 * JSON, or NaN when the walk cannot tell (what is not plain data: a `toJSON`, a class instance,
 * a bigint, nesting past 64 levels): then measure exactly. It stops once past `budget`,
 * answering a number above it. Each string counts 6 bytes a UTF-16 unit (the most an escape
 * takes), each number 24 (the longest JSON writes), so a result well within its limit is
 * known to fit at the cost of one pass over its fields.
 */
export function jsonBytesBound(value: unknown, budget: number): number {
  return bound(value, budget, 0);
}

const MAX_DEPTH = 64;

function bound(value: unknown, budget: number, depth: number): number {
  switch (typeof value) {
    case 'string':
      return 2 + 6 * value.length;
    case 'number':
      return 24;
    case 'boolean':
      return 5;
    case 'object':
      break;
    case 'bigint':
      return Number.NaN;
    default:
      // undefined, a function or a symbol: `null` in an array, left out of an object.
      return 4;
  }
  if (value === null) return 4;
  if (depth >= MAX_DEPTH) return Number.NaN;
  let total = 2;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      total += bound(value[i], budget, depth + 1) + 1;
      if (!(total <= budget)) return total;
    }
    return total;
  }
  const prototype = Object.getPrototypeOf(value);
  if ((prototype !== Object.prototype && prototype !== null) || typeof (value as { toJSON?: unknown }).toJSON === 'function') return Number.NaN;
  // Inherited enumerable keys, if any, only add to the bound.
  for (const key in value) {
    total += 4 + 6 * key.length + bound((value as Record<string, unknown>)[key], budget, depth + 1);
    if (!(total <= budget)) return total;
  }
  return total;
}

/**
 * The UTF-8 bytes of a string that is JSON text: JSON.stringify escapes lone surrogates, so
 * every surrogate here is half of a pair (4 bytes for the pair).
 */
export function utf8Bytes(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * The longest prefix of `text`, cut at a code point, whose JSON string body (escapes included,
 * quotes not) takes at most `budget` UTF-8 bytes: what JSON.stringify would write for it.
 */
export function prefixWithin(text: string, budget: number): string {
  let used = 0;
  let i = 0;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    const pair = code >= 0xd800 && code <= 0xdbff && i + 1 < text.length && isLow(text.charCodeAt(i + 1));
    const cost = pair ? 4 : escapedBytes(code);
    if (used + cost > budget) break;
    used += cost;
    i += pair ? 2 : 1;
  }
  return text.slice(0, i);
}

/** The bytes JSON.stringify writes for one UTF-16 unit that is not half of a pair. */
function escapedBytes(code: number): number {
  if (code === 0x22 || code === 0x5c || code === 0x08 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d) return 2;
  if (code < 0x20) return 6; // \u00XX
  if (code < 0x80) return 1;
  if (code < 0x800) return 2;
  if (code >= 0xd800 && code <= 0xdfff) return 6; // a lone surrogate, written \uXXXX
  return 3;
}

function isLow(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
