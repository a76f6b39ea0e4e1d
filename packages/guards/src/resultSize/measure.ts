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
