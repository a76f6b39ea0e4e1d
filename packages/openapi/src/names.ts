import type { OperationHead } from './operations';

const MAX = 128;

/** The tool name an operation asks for: a rule's name, its operationId, else `<method>_<path>`; made a valid MCP tool name. */
export function wantedName(operation: OperationHead, ruleName: string | undefined): string {
  const given = ruleName ?? operation.operationId;
  if (given !== undefined) return withinLimit(given.replace(/[^A-Za-z0-9_.-]+/g, '_'), '');
  const path = operation.path.replace(/[{}]/g, '').replace(/[^A-Za-z0-9_.-]+/g, '_').replace(/^_+|_+$/g, '');
  return withinLimit(`${operation.method.toLowerCase()}_${path === '' ? 'root' : path}`, '');
}

/**
 * Names made unique, deterministically: the first of equal names keeps it, the next ones get
 * `_2`, `_3`… (a suffix no other wanted name has).
 */
export function uniqueNames(wanted: readonly string[]): string[] {
  const all = new Set(wanted);
  const used = new Set<string>();
  return wanted.map((name) => {
    let chosen = name;
    for (let n = 2; used.has(chosen); n++) {
      chosen = withinLimit(name, `_${n}`);
      if (all.has(chosen)) chosen = name; // another operation wants that one: keep counting
    }
    used.add(chosen);
    return chosen;
  });
}

/**
 * `name` + `suffix` within 128 characters: a longer name keeps its beginning, then `_` and 8
 * hexadecimal digits of a hash of the whole, so long names that differ late stay apart.
 */
function withinLimit(name: string, suffix: string): string {
  if (name.length + suffix.length <= MAX) return name + suffix;
  const tail = `_${fnv1a(name)}${suffix}`;
  return name.slice(0, MAX - tail.length) + tail;
}

/** FNV-1a, 32 bits, as 8 hexadecimal digits. */
export function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, '0');
}
