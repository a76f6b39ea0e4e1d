/**
 * A value as JSON with every object's keys sorted (arrays keep their order): equal arguments
 * sent in another key order give the same key. Values JSON leaves out (undefined, functions)
 * are left out here too; the request came as JSON, so there are none in practice. Built by
 * concatenation, without arrays of parts: it runs on every call of a cached item.
 */
export function canonicalJson(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'null';
  // Most arguments come with their keys in order already: then JSON.stringify writes the same, in one native call.
  return inOrder(value) ? JSON.stringify(value) : sortedJson(value);
}

/** Whether every object in `value` has its own keys in sorted order (as `Object.keys(o).sort()` puts them). */
function inOrder(value: object): boolean {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (typeof item === 'object' && item !== null && !inOrder(item)) return false;
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
    if (typeof item === 'object' && item !== null && !inOrder(item)) return false;
  }
  return true;
}

function sortedJson(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + sortedJson(value[i]);
    return `${out}]`;
  }
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
