/** Fixed payloads the conformance scenarios ask for. */

/** A 1×1 red PNG. */
export const RED_PIXEL_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==',
  'base64',
);

/** A minimal WAV file: 8 kHz mono 16-bit PCM, one sample. */
export const TINY_WAV = Buffer.from('UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=', 'base64');

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
