/**
 * The one place where values a client sent become text in errors and diagnostics: bounded
 * (a 10 MB name must not make a 10 MB error, twice), and safe (a value whose `toString` is not
 * callable, or an array nested 100 000 deep, must not throw).
 */

/** Characters of client input an error repeats before cutting it. */
export const ECHO_LIMIT = 200;

/** A client string as it may appear in a message: cut at `limit` characters. */
export function clip(text: string, limit = ECHO_LIMIT): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}… (${text.length} characters)`;
}

/** Any client value as JSON text for a message, cut at `limit` characters; never throws. */
export function quote(value: unknown, limit = ECHO_LIMIT): string {
  let text: string | undefined;
  try {
    // A long string is cut before encoding, so the cost stays bounded too.
    text = JSON.stringify(typeof value === 'string' && value.length > limit ? value.slice(0, limit + 1) : value);
  } catch {
    text = undefined;
  }
  if (text === undefined) text = Array.isArray(value) ? '[an array]' : value === undefined ? 'undefined' : `[a ${typeof value}]`;
  if (typeof value === 'string' && value.length > limit) return `${text.slice(0, -1)}…" (${value.length} characters)`;
  return clip(text, limit);
}

/** A client value kept in an error's `data`: strings cut at `limit`, anything else as is when small. */
export function echo(value: unknown, limit = ECHO_LIMIT): unknown {
  if (typeof value === 'string') return value.length <= limit ? value : `${value.slice(0, limit)}…`;
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    // Too deep to encode: it could not be sent either.
  }
  return text !== undefined && text.length <= limit ? value : quote(value, limit);
}

/** The text of a reason a client gave (a cancellation's `reason`): a string as is, cut; anything else quoted. */
export function reasonText(reason: unknown, fallback: string): string {
  if (reason === undefined || reason === null) return fallback;
  return typeof reason === 'string' ? clip(reason) : quote(reason);
}
