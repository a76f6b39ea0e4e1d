/** A file of a skill as it is served: its bytes, and its digest once someone asked for it. */
export interface SkillFile {
  /** The path inside the skill's namespace, `/`-separated (`pdf-processing/references/FORMS.md`). */
  readonly path: string;
  readonly bytes: Uint8Array;
  readonly mimeType: string;
}

/** The `mimeType` of skill files whose extension says nothing better. */
const FALLBACK_MIME_TYPE = 'application/octet-stream';

const MIME_TYPES: Readonly<Record<string, string>> = {
  md: 'text/markdown',
  markdown: 'text/markdown',
  txt: 'text/plain',
  text: 'text/plain',
  csv: 'text/csv',
  html: 'text/html',
  htm: 'text/html',
  css: 'text/css',
  xml: 'application/xml',
  json: 'application/json',
  yaml: 'application/yaml',
  yml: 'application/yaml',
  toml: 'application/toml',
  js: 'text/javascript',
  mjs: 'text/javascript',
  cjs: 'text/javascript',
  ts: 'text/x-typescript',
  py: 'text/x-python',
  sh: 'text/x-shellscript',
  rb: 'text/x-ruby',
  go: 'text/x-go',
  rs: 'text/x-rust',
  java: 'text/x-java',
  sql: 'application/sql',
  svg: 'image/svg+xml',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  pdf: 'application/pdf',
  zip: 'application/zip',
};

/** The MIME type of a skill file, from its extension. */
export function mimeTypeOf(path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return (dot > 0 && MIME_TYPES[name.slice(dot + 1).toLowerCase()]) || FALLBACK_MIME_TYPE;
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The `resources/read` contents of a file: `text` when its bytes are UTF-8 (so the text encodes
 * back to exactly the bytes the digest covers), else a base64 `blob`.
 */
export function fileContents(uri: string, file: SkillFile): Record<string, unknown> {
  try {
    return { uri, mimeType: file.mimeType, text: utf8.decode(file.bytes) };
  } catch {
    return { uri, mimeType: file.mimeType, blob: toBase64(file.bytes) };
  }
}

const digests = new WeakMap<Uint8Array, Promise<string>>();

/** `sha256:<64 lowercase hex>` of the bytes, computed once per byte array (WebCrypto). */
export function digestOf(bytes: Uint8Array): Promise<string> {
  let digest = digests.get(bytes);
  if (!digest) {
    digest = crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>).then((hash) => `sha256:${toHex(new Uint8Array(hash))}`);
    digests.set(bytes, digest);
  }
  return digest;
}

function toHex(bytes: Uint8Array): string {
  let hex = '';
  for (const byte of bytes) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}
