import { invalid } from './options';
import type { OpenApiLoader } from './options';

/** Reads the document at an absolute URL: the parsed value. */
export type DocumentReader = (url: string) => Promise<unknown>;

/** Reads through `loadRef` when given; else `file:` URLs from disk and `http(s):` ones with fetch. */
export function documentReader(loadRef: OpenApiLoader | undefined, fetchFn: typeof fetch): DocumentReader {
  return async (url) => {
    let content: unknown;
    try {
      content = loadRef ? await loadRef(url) : await readText(url, fetchFn);
    } catch (error) {
      throw invalid(`cannot read ${url}: ${(error as Error).message ?? String(error)}`);
    }
    return typeof content === 'string' ? parseDocument(content, url) : content;
  };
}

async function readText(url: string, fetchFn: typeof fetch): Promise<string> {
  if (url.startsWith('file:')) {
    const { readFile } = await import('node:fs/promises');
    const { fileURLToPath } = await import('node:url');
    return readFile(fileURLToPath(url), 'utf8');
  }
  if (!/^https?:/i.test(url)) throw new Error('only file, http and https URLs are read without loadRef');
  const response = await fetchFn(url, { headers: { accept: 'application/json, application/yaml;q=0.9, */*;q=0.5' } });
  if (!response.ok) throw new Error(`the server answered ${response.status} ${response.statusText}`);
  return response.text();
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
