/**
 * Bytes as base64 and base64url text, on the Web's own `btoa`/`atob`: the fetch path runs where
 * there is no `Buffer` (Workers, browsers). Chunked, so large blobs do not overflow the stack.
 */
const CHUNK = 0x8000;

/** Standard base64 with padding, as MCP's `blob` fields carry it. */
export function bytesToBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += CHUNK) binary += String.fromCharCode(...bytes.subarray(i, i + CHUNK));
  return btoa(binary);
}

/** base64url without padding (RFC 4648 §5). */
export function bytesToBase64url(bytes: Uint8Array): string {
  return bytesToBase64(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** UTF-8 text as base64url without padding. */
export function textToBase64url(text: string): string {
  return bytesToBase64url(new TextEncoder().encode(text));
}

/**
 * The bytes of base64url text; undefined for anything else (another alphabet, padding, or a
 * length no encoding produces). Other spellings of the same bits decode as they would elsewhere:
 * callers that need one spelling compare the re-encoded text.
 */
export function base64urlToBytes(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return undefined;
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** base64url text decoded as UTF-8; undefined when it is not base64url or not UTF-8. */
export function base64urlToText(text: string): string | undefined {
  const bytes = base64urlToBytes(text);
  if (!bytes) return undefined;
  try {
    return UTF8.decode(bytes);
  } catch {
    return undefined;
  }
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });
