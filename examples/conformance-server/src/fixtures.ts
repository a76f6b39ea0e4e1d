/** Fixed payloads the conformance scenarios ask for. */

/** A 1×1 red PNG, base64. */
export const RED_PIXEL_PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

/** The bytes of base64 text, with Web APIs only (the server also runs on Workers, which have no Buffer). */
function fromBase64(text: string): Uint8Array {
  return Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
}

/** A 1×1 red PNG. */
export const RED_PIXEL_PNG = fromBase64(RED_PIXEL_PNG_BASE64);

/** A minimal WAV file: 8 kHz mono 16-bit PCM, one sample. */
export const TINY_WAV = fromBase64('UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=');

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
