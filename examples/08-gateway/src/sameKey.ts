import { timingSafeEqual } from 'node:crypto';

/** Whether a header carries the expected key; compared in constant time, so timing tells nothing of it. */
export function sameKey(given: string | string[] | undefined, expected: string): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
