import { DefinitionError } from '@typemcp/core';
import type { Context, McpServerOptions } from '@typemcp/core';

/** What one operation of the document becomes. */
export type OpenApiKind = 'tool' | 'resource' | 'template' | 'exclude';

/**
 * Decides what the operations it matches become; the first rule that matches an operation
 * decides. Every criterion given must hold; a rule without criteria matches every operation.
 */
export interface OpenApiRule {
  /** HTTP methods, any case: `['GET']`. */
  methods?: readonly string[];
  /** The path as the document writes it (`/pets/{petId}`): a glob (`*` within a segment, `**` across segments) or a RegExp. */
  path?: string | RegExp;
  /** Operations with at least one of these tags. */
  tags?: readonly string[];
  /** The operationId, equal to this string or matching this RegExp. */
  operationId?: string | RegExp;
  as: OpenApiKind;
  /** The tool's name, or the resource's or template's name (not its URI). */
  name?: string;
}

/** What an operation is, for the `headers` function. */
export interface OpenApiOperation {
  /** Upper case: `GET`. */
  readonly method: string;
  /** As the document writes it: `/pets/{petId}`. */
  readonly path: string;
  readonly operationId?: string;
  readonly tags: readonly string[];
  /** The name of its tool, resource or template. */
  readonly name: string;
}

/** The headers of one downstream call: an object, or a function of the MCP request. */
export type OpenApiHeaders =
  | Readonly<Record<string, string>>
  | ((ctx: Context, operation: OpenApiOperation) => Readonly<Record<string, string>> | Promise<Readonly<Record<string, string>>>);

/** Something the document asked for that the server serves loosened, or leaves out. */
export interface OpenApiWarning {
  readonly code: 'SCHEMA_TOO_LARGE' | 'OUTPUT_SCHEMA_LEFT_OUT' | 'TOO_MANY_TOOLS' | 'OPERATION_LEFT_OUT';
  readonly message: string;
  /** The operation concerned: `GET /pets/{petId}`; absent for TOO_MANY_TOOLS. */
  readonly operation?: string;
}

/** Reads one document: the parsed object, or its text (JSON or YAML). */
export type OpenApiLoader = (url: string) => unknown | Promise<unknown>;

/**
 * The options of `fromOpenApi`: the document, the API's URL, what each operation becomes, and
 * how calls are made.
 */
export interface OpenApiOptions {
  /** The document: a parsed object, or a file path or URL of a JSON or YAML file. */
  spec: Record<string, unknown> | string;
  /** Where the API is; default the document's first `servers[].url` (resolved against the document's URL). */
  baseUrl?: string;
  /** What each operation becomes; by default every operation is a tool. */
  rules?: readonly OpenApiRule[];
  /** Headers of every downstream call (an API key, a token for the caller). The MCP request's own are never forwarded. */
  headers?: OpenApiHeaders;
  /** At most this many tools, the first ones in document order; the rest are left out and reported. */
  maxTools?: number;
  /** The `fetch` for downstream calls and for documents read from URLs; default `globalThis.fetch`. */
  fetch?: typeof fetch;
  /** How long a downstream call, or the read of one document, may take, in milliseconds; default 30 000. */
  timeoutMs?: number;
  /**
   * Whether a downstream call may follow a redirect to another origin than the API's: `url` is
   * where the redirect leads, `from` the URL redirected. Default none: such a redirect is a tool
   * error. One that is followed carries none of the call's headers but `accept` (and the body's
   * `content-type`). Redirects within the API's origin are followed (at most 5).
   */
  allowRedirect?: (url: string, from: string) => boolean;
  /** `serverInfo.name`; default the document's `info.title`. */
  name?: string;
  /** `serverInfo.version`; default the document's `info.version`. */
  version?: string;
  /** The other options of the McpServer made. */
  server?: Omit<McpServerOptions, 'name' | 'version' | 'providers'>;
  /** The largest input or output schema, in bytes of JSON, served as it is; default 65 536. */
  maxSchemaBytes?: number;
  /** Reads the document (when `spec` is a string) and every external `$ref`; default files and `fetch`. */
  loadRef?: OpenApiLoader;
  /**
   * Whether a `$ref` may name a document outside the first one's origin (read over http(s)) or
   * folder (read from a file; the working directory for a document given as an object): `url`
   * is the document named, `from` the document whose ref names it. Default none: such a ref
   * fails fromOpenApi. Also asked about a document read over http(s) that redirects elsewhere.
   * A document read over http(s) never names a local file.
   */
  allowRef?: (url: string, from: string) => boolean;
  /** The largest document (the first, or one a `$ref` names) read, in bytes; default 33 554 432 (32 MiB). */
  maxDocumentBytes?: number;
  /** The scheme of resource and template URIs: `openapi` makes `openapi://pets/{petId}`. */
  uriScheme?: string;
  /** Give `false` to leave every `outputSchema` out (answers still carry `structuredContent`). */
  outputSchemas?: boolean;
  /** Receives each warning; default one line on stderr each. */
  onWarning?: (warning: OpenApiWarning) => void;
}

/** The options, checked and with their defaults. */
export interface Settings {
  readonly rules: readonly OpenApiRule[];
  readonly headers?: OpenApiHeaders;
  readonly maxTools: number;
  readonly fetch: typeof fetch;
  readonly timeoutMs: number;
  readonly allowRedirect?: (url: string, from: string) => boolean;
  readonly maxSchemaBytes: number;
  readonly allowRef?: (url: string, from: string) => boolean;
  readonly maxDocumentBytes: number;
  readonly uriScheme: string;
  readonly outputSchemas: boolean;
  readonly warn: (warning: OpenApiWarning) => void;
}

export const DEFAULT_MAX_SCHEMA_BYTES = 65_536;
export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_DOCUMENT_BYTES = 32 * 1024 * 1024;
const KINDS: readonly OpenApiKind[] = ['tool', 'resource', 'template', 'exclude'];

export function invalid(message: string): DefinitionError {
  return new DefinitionError('INVALID_OPTION', `@typemcp/openapi: ${message}`);
}

export function checkOptions(options: OpenApiOptions): Settings {
  if (typeof options !== 'object' || options === null) throw invalid('give fromOpenApi({ spec }) an options object');
  const { spec } = options;
  if (typeof spec !== 'string' && (typeof spec !== 'object' || spec === null || Array.isArray(spec))) {
    throw invalid('spec must be the parsed document (an object), or the path or URL of a JSON or YAML file');
  }
  const positive = (name: string, value: number | undefined, fallback: number): number => {
    if (value === undefined) return fallback;
    if (!Number.isInteger(value) || value <= 0) throw invalid(`${name} must be a positive integer, not ${String(value)}`);
    return value;
  };
  const fetchFn = options.fetch ?? (globalThis.fetch as typeof fetch | undefined);
  if (typeof fetchFn !== 'function') throw invalid('this runtime has no global fetch: give the fetch option');
  if (options.headers !== undefined && typeof options.headers !== 'function' && (typeof options.headers !== 'object' || options.headers === null)) {
    throw invalid('headers must be an object of header values or a function (ctx, operation) returning one');
  }
  if (options.loadRef !== undefined && typeof options.loadRef !== 'function') throw invalid('loadRef must be a function (url) returning the document or its text');
  if (options.allowRef !== undefined && typeof options.allowRef !== 'function') throw invalid('allowRef must be a function (url, from) returning true to read the document');
  if (options.allowRedirect !== undefined && typeof options.allowRedirect !== 'function') throw invalid('allowRedirect must be a function (url, from) returning true to follow the redirect');
  const uriScheme = options.uriScheme ?? 'openapi';
  if (!/^[a-z][a-z0-9+.-]*$/i.test(uriScheme)) throw invalid(`uriScheme must be a URI scheme such as "openapi" (a letter, then letters, digits, "+", "-" or "."), not ${JSON.stringify(uriScheme)}`);
  return {
    rules: checkRules(options.rules),
    headers: options.headers,
    maxTools: positive('maxTools', options.maxTools, Number.POSITIVE_INFINITY),
    fetch: fetchFn,
    timeoutMs: positive('timeoutMs', options.timeoutMs, DEFAULT_TIMEOUT_MS),
    allowRedirect: options.allowRedirect,
    maxSchemaBytes: positive('maxSchemaBytes', options.maxSchemaBytes, DEFAULT_MAX_SCHEMA_BYTES),
    allowRef: options.allowRef,
    maxDocumentBytes: positive('maxDocumentBytes', options.maxDocumentBytes, DEFAULT_MAX_DOCUMENT_BYTES),
    uriScheme,
    outputSchemas: options.outputSchemas !== false,
    warn: options.onWarning ?? warnOnStderr,
  };
}

function checkRules(rules: readonly OpenApiRule[] | undefined): readonly OpenApiRule[] {
  if (rules === undefined) return [];
  if (!Array.isArray(rules)) throw invalid('rules must be an array of { methods?, path?, tags?, operationId?, as, name? }');
  rules.forEach((rule, i) => {
    const where = `rules[${i}]`;
    if (typeof rule !== 'object' || rule === null) throw invalid(`${where} must be an object`);
    if (!KINDS.includes(rule.as)) throw invalid(`${where}.as must be one of ${KINDS.map((k) => `'${k}'`).join(', ')}, not ${JSON.stringify(rule.as)}`);
    const strings = (name: 'methods' | 'tags') => {
      const list = rule[name];
      if (list !== undefined && (!Array.isArray(list) || list.some((s) => typeof s !== 'string'))) throw invalid(`${where}.${name} must be an array of strings`);
    };
    strings('methods');
    strings('tags');
    for (const name of ['path', 'operationId'] as const) {
      const value = rule[name];
      if (value !== undefined && typeof value !== 'string' && !(value instanceof RegExp)) throw invalid(`${where}.${name} must be a string or a RegExp`);
    }
    if (rule.name !== undefined && (typeof rule.name !== 'string' || rule.name === '')) throw invalid(`${where}.name must be a non-empty string`);
  });
  return rules;
}

function warnOnStderr(warning: OpenApiWarning): void {
  const line = `@typemcp/openapi: ${warning.message}`;
  const stderr = (globalThis as { process?: { stderr?: { write?: (text: string) => unknown } } }).process?.stderr;
  if (typeof stderr?.write === 'function') stderr.write(`${line}\n`);
  else console.error(line);
}
