/** Keys longer than this are hashed: a store keeps them short whatever the arguments. */
const LONGEST_PLAIN_KEY = 128;

/**
 * A value as JSON with every object's keys sorted (arrays keep their order): equal arguments
 * sent in another key order give the same key. Values JSON leaves out (undefined, functions)
 * are left out here too; the request came as JSON, so there are none in practice.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item)).join(',')}]`;
  const record = value as Record<string, unknown>;
  const parts: string[] = [];
  for (const key of Object.keys(record).sort()) {
    const item = record[key];
    if (item === undefined || typeof item === 'function') continue;
    parts.push(`${JSON.stringify(key)}:${canonicalJson(item)}`);
  }
  return `{${parts.join(',')}}`;
}

/**
 * The store key for `text`: itself (`k:`) when short, else its SHA-256 (`h:`, base64url) by
 * WebCrypto, which Node, Bun, Deno and Workers all have.
 */
export async function storeKey(text: string): Promise<string> {
  if (text.length <= LONGEST_PLAIN_KEY) return `k:${text}`;
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  let binary = '';
  for (const byte of digest) binary += String.fromCharCode(byte);
  return `h:${btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')}`;
}
