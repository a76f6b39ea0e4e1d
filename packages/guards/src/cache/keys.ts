/**
 * A value as JSON with every object's keys sorted (arrays keep their order): equal arguments
 * sent in another key order give the same key. Values JSON leaves out (undefined, functions)
 * are left out here too; the request came as JSON, so there are none in practice. Numbers JSON
 * writes alike although a handler tells them apart are written apart: `-0` (JSON writes `0`),
 * `Infinity` and `-Infinity` (what `1e400` parses to; JSON writes `null`). An in-memory client's
 * structured clone may hold objects that are neither plain objects nor arrays (a `Date`, a
 * `Map`): they throw, so the call has no key and is not cached.
 * Built by concatenation, without arrays of parts: it runs on every call of a cached item.
 */
export function canonicalJson(value: unknown): string {
  if (typeof value !== 'object' || value === null) return sortedJson(value);
  // Most arguments come with their keys in order already: then JSON.stringify writes the same, in one native call.
  return inOrder(value) ? JSON.stringify(value) : sortedJson(value);
}

/** Whether every object in `value` has its own keys in sorted order (as `Object.keys(o).sort()` puts them). */
function inOrder(value: object): boolean {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (typeof item === 'object' ? item !== null && !inOrder(item) : typeof item === 'number' && !plainNumber(item)) return false;
    }
    return true;
  }
  // A prototype other than Object's (or none) may have a toJSON or enumerable keys of its own: the slow path decides.
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  let previous: string | undefined;
  for (const key in value) {
    if (previous !== undefined && previous > key) return false;
    previous = key;
    const item: unknown = (value as Record<string, unknown>)[key];
    if (typeof item === 'object' ? item !== null && !inOrder(item) : typeof item === 'number' && !plainNumber(item)) return false;
  }
  return true;
}

/** A number JSON writes as itself: finite, and not -0. */
function plainNumber(value: number): boolean {
  return value === 0 ? 1 / value > 0 : value - value === 0;
}

function sortedJson(value: unknown): string {
  if (typeof value === 'number' && !plainNumber(value)) return Object.is(value, -0) ? '-0' : String(value);
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + sortedJson(value[i]);
    return `${out}]`;
  }
  const prototype: unknown = Object.getPrototypeOf(value);
  // A root prototype is a plain object's (of any realm: a structured clone may make it in another); a Date or a Map (from an in-memory client) would be written as another value is.
  if (prototype !== null && Object.getPrototypeOf(prototype) !== null) throw new TypeError('not a JSON value: no cache key for it');
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  if (keys.length > 1) keys.sort();
  let out = '{';
  for (let i = 0; i < keys.length; i++) {
    const item = record[keys[i]];
    if (item === undefined || typeof item === 'function') continue;
    out += (out.length === 1 ? '' : ',') + JSON.stringify(keys[i]) + ':' + sortedJson(item);
  }
  return `${out}}`;
}
