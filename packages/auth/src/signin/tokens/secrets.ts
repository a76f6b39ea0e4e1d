/** Random, URL-safe, 256 bits: codes, refresh tokens, ids and CSRF tokens. */
export function randomToken(bytes = 32): string {
  return base64url(crypto.getRandomValues(new Uint8Array(bytes)));
}

/** SHA-256 of the text, base64url: how secrets are stored, and the PKCE S256 transform. */
export async function sha256(text: string): Promise<string> {
  return base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text))));
}

export function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** A PKCE code verifier: 43 to 128 unreserved characters (RFC 7636 §4.1). */
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
/** An S256 challenge: the base64url of 32 bytes. */
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export const isCodeChallenge = (value: string): boolean => CHALLENGE.test(value);

/** Whether the verifier's S256 transform is the challenge (RFC 7636 §4.6). */
export async function verifierMatches(verifier: string, challenge: string): Promise<boolean> {
  if (!VERIFIER.test(verifier)) return false;
  return equalStrings(await sha256(verifier), challenge);
}

/** Compares in time independent of where the strings first differ. */
export function equalStrings(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}
