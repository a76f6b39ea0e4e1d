import { invalid } from './options';
import type { OpenApiLoader } from './options';
import { ReadError } from './scope';
import type { RefScope } from './scope';
import { MAX_REDIRECTS, REDIRECT_STATUSES } from './redirects';

/**
 * Reads the document at an absolute URL: the parsed value. `from` is the document whose
 * `$ref` names it (none for the first document): the scope decides whether it may be read.
 */
export type DocumentReader = (url: string, from?: string) => Promise<unknown>;

/** How long one document may take to read, and how large it may be. */
export interface ReadLimits {
  readonly timeoutMs: number;
  readonly maxBytes: number;
}

/**
 * Reads through `loadRef` when given; else `file:` URLs from disk and `http(s):` ones with
 * fetch. Every read is bounded by `limits` (a body is read as a stream and dropped past the
 * cap), and a URL named by a `$ref` is read only when `scope` allows it: a file within the
 * folder is checked again by its real path (a symbolic link may lead out), and an http(s)
 * read follows redirects itself, each one checked as a ref would be.
 */
export function documentReader(loadRef: OpenApiLoader | undefined, fetchFn: typeof fetch, limits: ReadLimits, scope: RefScope): DocumentReader {
  return async (url, from) => {
    const ref = from === undefined ? undefined : scope.check(url, from);
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort(new Error('timed out'));
        reject(new ReadError(`did not answer within ${limits.timeoutMs} ms`));
      }, limits.timeoutMs);
    });
    try {
      const reading = loadRef ? Promise.resolve(loadRef(url)) : readText(url, fetchFn, controller.signal, limits.maxBytes, scope, ref);
      const content = await Promise.race([reading, timeout]);
      if (typeof content !== 'string') return content;
      if (loadRef && new TextEncoder().encode(content).byteLength > limits.maxBytes) throw tooLarge(limits.maxBytes);
      return parseDocument(content, url);
    } finally {
      clearTimeout(timer);
    }
  };
}

/** The DefinitionError for a document that cannot be read: the first one, or one a `$ref` names. */
export function readFailure(error: unknown, url: string, ref?: { readonly ref: string; readonly from: string }): Error {
  if ((error as { name?: unknown })?.name === 'DefinitionError') return error as Error;
  const what = ref ? `the $ref "${ref.ref}" in ${ref.from}` : url;
  if (error instanceof ReadError) return invalid(`cannot read ${what}: ${ref ? url : 'it'} ${error.predicate}`);
  const cause = (error as Error)?.message ?? String(error);
  return invalid(`cannot read ${what}: ${ref ? `${url}: ` : ''}${cause}`);
}

function tooLarge(maxBytes: number): ReadError {
  return new ReadError(`is larger than maxDocumentBytes (${maxBytes} bytes)`);
}

/** `ref`: how the scope lets a ref read it (none for the first document). */
async function readText(url: string, fetchFn: typeof fetch, signal: AbortSignal, maxBytes: number, scope: RefScope, ref: 'within' | 'allowed' | undefined): Promise<string> {
  if (url.startsWith('file:')) return readFileText(url, signal, maxBytes, scope, ref);
  if (!/^https?:/i.test(url)) throw new Error('only file, http and https URLs are read without loadRef');
  let current = url;
  for (let redirects = 0; ; redirects++) {
    const response = await fetchFn(current, { headers: { accept: 'application/json, application/yaml;q=0.9, */*;q=0.5' }, signal, redirect: 'manual' });
    if (response.type === 'opaqueredirect') throw new ReadError('is redirected, and this fetch does not say where (an opaque redirect): not followed');
    const location = REDIRECT_STATUSES.has(response.status) ? response.headers.get('location') : null;
    if (location === null) {
      if (!response.ok) {
        await response.body?.cancel().catch(() => undefined);
        throw new Error(`the server answered ${response.status} ${response.statusText}`);
      }
      return readBody(response, maxBytes);
    }
    await response.body?.cancel().catch(() => undefined);
    if (redirects === MAX_REDIRECTS) throw new ReadError(`is redirected more than ${MAX_REDIRECTS} times`);
    current = redirectTarget(current, location, scope);
  }
}

/** Where a document read over http(s) is redirected, if a ref could name it from there. */
function redirectTarget(current: string, location: string, scope: RefScope): string {
  let target: URL;
  try {
    target = new URL(location, current);
  } catch {
    throw new ReadError(`redirects to ${JSON.stringify(location.slice(0, 200))}, which is not a URL`);
  }
  if (target.username !== '' || target.password !== '') throw new ReadError('redirects to a URL that carries a user name or password: refused');
  target.hash = '';
  if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new ReadError(`redirects to ${target.href}, which is not http(s): refused`);
  try {
    scope.check(target.href, current);
  } catch (error) {
    if (error instanceof ReadError) throw new ReadError(`redirects to ${target.href}, which ${error.predicate}`);
    throw error;
  }
  return target.href;
}

/** The body as text, read as a stream: more than `maxBytes` stops the read. */
async function readBody(response: Response, maxBytes: number): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw tooLarge(maxBytes);
  }
  if (!response.body) return response.text();
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(maxBytes);
    }
    text += decoder.decode(value, { stream: true });
  }
}

/**
 * A file's text, read as a stream up to `maxBytes`. A file a ref names must be a regular file
 * (not a pipe or a device, whose read may never end), and one within the document's folder
 * must be there by its real path too: a symbolic link may not lead out.
 */
async function readFileText(url: string, signal: AbortSignal, maxBytes: number, scope: RefScope, ref: 'within' | 'allowed' | undefined): Promise<string> {
  const { createReadStream } = await import('node:fs');
  const { realpath, stat } = await import('node:fs/promises');
  const { fileURLToPath } = await import('node:url');
  const { sep } = await import('node:path');
  const path = fileURLToPath(url);
  if (ref === 'within') {
    const folder = await scope.folderRealPath();
    const real = await realpath(path);
    if (!real.startsWith(folder.endsWith(sep) ? folder : folder + sep)) throw new ReadError('leads outside the folder of the document (a symbolic link): refused');
  }
  if (ref !== undefined && !(await stat(path)).isFile()) throw new ReadError('is not a regular file: refused');
  const stream = createReadStream(path, { signal, highWaterMark: 1024 * 1024 });
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) {
      stream.destroy();
      throw tooLarge(maxBytes);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** JSON, or else YAML (loaded only for a document that is not JSON). */
export function parseDocument(text: string, url: string): unknown {
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      return JSON.parse(text);
    } catch (error) {
      throw invalid(`${url} is not valid JSON: ${(error as Error).message}`);
    }
  }
  try {
    const yaml = require('yaml') as typeof import('yaml');
    return yaml.parse(text, { schema: 'core', maxAliasCount: 1000 });
  } catch (error) {
    throw invalid(`${url} is neither JSON nor valid YAML: ${(error as Error).message.split('\n')[0]}`);
  }
}

/** The absolute URL of a document given as a path or URL; relative paths from the working directory. */
export async function documentUrl(spec: string): Promise<string> {
  // A scheme of two letters or more: `C:\api.json` is a Windows path.
  if (/^[a-z][a-z0-9+.-]+:/i.test(spec)) return new URL(spec).href;
  const { pathToFileURL } = await import('node:url');
  const { resolve } = await import('node:path');
  return pathToFileURL(resolve(spec)).href;
}

/** Where the relative `$ref`s of a document given as an object resolve: the working directory. */
export async function workingDirectoryUrl(): Promise<string> {
  const process = (globalThis as { process?: { cwd?: () => string } }).process;
  if (typeof process?.cwd !== 'function') return 'file:///';
  const { pathToFileURL } = await import('node:url');
  return pathToFileURL(`${process.cwd()}/`).href;
}
