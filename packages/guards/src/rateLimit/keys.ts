/**
 * Parts of store keys. A part is kept as it is when it is short printable ASCII without braces
 * (a Redis Cluster store wraps keys in a hash tag `{…}`), else replaced by `#` and the base64url
 * SHA-256 of its UTF-8 text: keys stay bounded and safe whatever a principal's subject or a
 * tool's name holds.
 */
const SAFE = /^[\x21-\x7a\x7c\x7e]{1,100}$/;
const MEMO_SIZE = 10_000;
const hashed = new Map<string, string>();

/**
 * A name in a key (a rule, a tool, a resource uri): `%` and `:` escaped, so the parts of a key
 * cannot run into each other, then as `keyPart`.
 */
export function namePart(name: string): string | Promise<string> {
  return keyPart(name.replace(/%/g, '%25').replace(/:/g, '%3A'));
}

/** A key part: the text itself when it is safe, else its hash (computed once, then remembered). */
export function keyPart(text: string): string | Promise<string> {
  if (SAFE.test(text) && !text.startsWith('#')) return text;
  const known = hashed.get(text);
  if (known !== undefined) return known;
  return digest(text).then((part) => {
    if (hashed.size >= MEMO_SIZE) hashed.delete(hashed.keys().next().value!);
    hashed.set(text, part);
    return part;
  });
}

async function digest(text: string): Promise<string> {
  const bytes = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `#${btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')}`;
}
