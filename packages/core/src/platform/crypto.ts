import { bytesToBase64url } from './base64';

/**
 * WebCrypto, present on Node ≥ 20, Bun, Deno and Workers alike. Everything here is asked for
 * on use, never at module scope: Workers forbid random values outside a request.
 */

/** `bytes` random bytes as base64url text. */
export function randomToken(bytes: number): string {
  return bytesToBase64url(crypto.getRandomValues(new Uint8Array(bytes)));
}

/** SHA-256 of UTF-8 text, base64url. */
export async function sha256Base64url(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return bytesToBase64url(new Uint8Array(digest));
}

/** An HMAC-SHA-256 signer over a secret; the key is imported once, on first use. */
export function hmacSha256(secret: Uint8Array): (text: string) => Promise<string> {
  let key: ReturnType<typeof crypto.subtle.importKey> | undefined;
  return async (text) => {
    key ??= crypto.subtle.importKey('raw', secret as Uint8Array<ArrayBuffer>, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']).catch((error: unknown) => {
      key = undefined; // tried again next time
      throw error;
    });
    const signature = await crypto.subtle.sign('HMAC', await key, new TextEncoder().encode(text));
    return bytesToBase64url(new Uint8Array(signature));
  };
}

/** Compares two strings in time that depends on their length only. */
export function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}
