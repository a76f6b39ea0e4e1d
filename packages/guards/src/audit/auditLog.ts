import { DefinitionError } from '@typemcp/core';
import type { JsonSchema, ObservedRequest, Plugin, PluginHost, RequestOutcome } from '@typemcp/core';
import { declareGuard, itemSettings } from '../items';

/** The plugin's name, and the key its decorator declares under. */
const NAME = 'guards:audit';

/** Written in place of an opted-in argument whose schema says `writeOnly` (`@Sensitive`). */
export const SENSITIVE = '[sensitive]';

/** Client-chosen text (a method, a tool name, a uri) is cut here, so a line stays a line. */
const MAX_TEXT = 256;

/**
 * Where the audit log goes: a pino-compatible logger (`pino()`, a child of one, or
 * `jsonLinesLogger()`). Errors and refusals go to `warn` when it has one, the rest to `info`.
 */
export interface AuditLogger {
  info(object: AuditEntry, message?: string): unknown;
  warn?(object: AuditEntry, message?: string): unknown;
}

/** Who made a request: its principal's subject, else its client's address over HTTP, else the one local client (no id). */
export interface AuditCaller {
  readonly kind: 'principal' | 'address' | 'local';
  readonly id?: string;
}

/** One request, as the audit log records it when it ends. */
export interface AuditEntry {
  /** When it arrived, ISO 8601. */
  readonly time: string;
  readonly requestId: string | number;
  /** Its handshake-era session, when it has one. */
  readonly sessionId?: string;
  readonly caller: AuditCaller;
  readonly method: string;
  /** The tool or prompt name, or the resource uri, that the request names (as the client wrote it). */
  readonly item?: string;
  readonly outcome: 'result' | 'tool_error' | 'error' | 'cancelled';
  /** The JSON-RPC error code sent, for an `error` outcome. */
  readonly errorCode?: number;
  readonly durationMs: number;
  /** UTF-8 bytes of the request's params as JSON. */
  readonly requestBytes: number;
  /** UTF-8 bytes of the result or the error as JSON; 0 when nothing was answered. */
  readonly responseBytes: number;
  /** The protocol version the request speaks, when known. */
  readonly protocolVersion?: string;
  /** The arguments the options (or `@AuditArguments`) let in, by name; sensitive ones as `"[sensitive]"`. */
  readonly arguments?: Readonly<Record<string, unknown>>;
}

/** `server.plugin(auditLog, options)`. */
export interface AuditLogOptions {
  /** Receives one entry per request; one that throws is reported, and the request goes on. */
  readonly logger: AuditLogger;
  /**
   * Arguments to record, per tool, by name: `{ tools: { add_bookmark: ['url', 'tags'] } }`.
   * None are recorded otherwise. An argument whose schema says `writeOnly` (`@Sensitive`) is
   * recorded as `"[sensitive]"` even when named here.
   */
  readonly arguments?: { readonly tools?: Readonly<Record<string, readonly string[]>> };
}

/** How many `@AuditArguments` have been declared in this process: with none and no options, no tool call looks for arguments. */
let declarations = 0;

/**
 * Names the arguments of one tool that the audit log records, unless the plugin's options name
 * them for that tool: `@AuditArguments('url', 'tags')`. A `writeOnly` (`@Sensitive`) one is
 * recorded as `"[sensitive]"` all the same.
 */
export function AuditArguments(...names: string[]): MethodDecorator {
  checkNames(names, '@AuditArguments');
  declarations++;
  return declareGuard(NAME, Object.freeze([...names]));
}

/**
 * The audit log: one structured entry per request, written when the request ends (see
 * `AuditEntry`), to the logger the author gives. It only listens (an observer): it never
 * changes an answer nor delays one, and a logger that throws is reported.
 */
export const auditLog: Plugin<AuditLogOptions> = {
  name: NAME,
  register(host, options) {
    const { logger, fields } = checkOptions(options);
    const audit = new Audit(host, logger, fields);
    host.observe({ request: (request) => audit.heard(request) });
  },
};

/** One server's audit log. Per request it keeps what arrived and builds the entry once, when the request ends. */
class Audit {
  /** The arguments recorded per tool, by name, with the served code and schema they were found for. */
  private readonly recorded = new Map<string, { readonly target: object; readonly names: readonly string[] | undefined; readonly schema: JsonSchema | undefined }>();
  /** The last arrival's time to the millisecond and as text: requests arriving together share it. */
  private lastMs = NaN;
  private lastTime = '';

  constructor(
    private readonly host: PluginHost,
    private readonly logger: AuditLogger,
    private readonly fields: AuditLogOptions['arguments'],
  ) {}

  /** A request arrived: what it was is taken now; the entry is made and written when it ends. */
  heard(request: ObservedRequest): (outcome: RequestOutcome) => void {
    const started = performance.now();
    const now = Date.now();
    if (now !== this.lastMs) {
      this.lastMs = now;
      this.lastTime = new Date(now).toISOString();
    }
    const time = this.lastTime;
    const requestBytes = jsonBytes(request.params);
    // Taken now, as received: what middleware later does to the params is not what the client sent.
    const args = request.method === 'tools/call' && (declarations > 0 || this.fields?.tools !== undefined) ? this.safeArgumentsOf(request) : undefined;
    return (outcome) => this.write(request, outcome, time, started, requestBytes, args);
  }

  private write(request: ObservedRequest, outcome: RequestOutcome, time: string, started: number, requestBytes: number, args: Record<string, unknown> | undefined): void {
    // Built in the order it is read, and what a request does not have is left out rather than written as null.
    // The id is the client's text too: cut like the others, so a line stays a line.
    const entry: { -readonly [K in keyof AuditEntry]: AuditEntry[K] } = { time, requestId: typeof request.id === 'string' ? clip(request.id) : request.id } as AuditEntry;
    if (request.sessionId !== undefined) entry.sessionId = request.sessionId;
    entry.caller = callerOf(request);
    entry.method = clip(request.method);
    const item = itemNamed(request);
    if (item !== undefined) entry.item = item;
    const type = outcome.type;
    entry.outcome = type;
    if (type === 'error') entry.errorCode = outcome.error.code;
    entry.durationMs = Math.round((performance.now() - started) * 1000) / 1000;
    entry.requestBytes = requestBytes;
    entry.responseBytes = type === 'cancelled' ? 0 : jsonBytes(type === 'error' ? outcome.error : outcome.result);
    // Kept to be read in the log, never compared here.
    if (request.protocolVersion !== undefined) entry.protocolVersion = clip(request.protocolVersion);
    if (args !== undefined) entry.arguments = args;
    const logger = this.logger;
    try {
      const written = (type === 'error' || type === 'tool_error') && typeof logger.warn === 'function' ? logger.warn(entry, 'mcp request') : logger.info(entry, 'mcp request');
      // A logger that answers with a promise may fail later: that is reported too.
      if (written !== null && typeof written === 'object' && typeof (written as { then?: unknown }).then === 'function') {
        (written as Promise<unknown>).then(undefined, (error: unknown) => this.host.reportError('the audit logger failed', error));
      }
    } catch (error) {
      this.host.reportError('the audit logger failed', error);
    }
  }

  /** `argumentsOf`, or none when they cannot be worked out: a request must never slip out of the log (an observer that throws writes no entry). */
  private safeArgumentsOf(request: ObservedRequest): Record<string, unknown> | undefined {
    try {
      return this.argumentsOf(request);
    } catch {
      return undefined;
    }
  }

  /** The opted-in arguments of a tool call, each as sent unless its schema says it is `writeOnly`. */
  private argumentsOf(request: ObservedRequest): Record<string, unknown> | undefined {
    const sent = request.params.arguments;
    if (typeof sent !== 'object' || sent === null || Array.isArray(sent)) return undefined;
    const name = request.params.name;
    if (typeof name !== 'string') return undefined;
    let found = this.recorded.get(name);
    // Looked up on every call (a tool may be replaced, or listed anew by its upstream); what it records is worked out once per tool.
    const item = this.host.itemOf(request.method, request.params);
    if (item === undefined) return undefined;
    if (found === undefined || found.target !== item.target || found.schema !== item.inputSchema) {
      const settings = itemSettings<readonly string[]>(this.host, NAME, this.fields, request.method, request.params)?.settings;
      found = { target: item.target, names: settings !== undefined && settings.length > 0 ? settings : undefined, schema: item.inputSchema };
      this.recorded.set(name, found);
    }
    const { names, schema } = found;
    if (names === undefined) return undefined;
    const recorded: Record<string, unknown> = {};
    for (const argument of names) {
      if (!Object.prototype.hasOwnProperty.call(sent, argument)) continue;
      const value = (sent as Record<string, unknown>)[argument];
      // Through the root as a whole: its $ref, allOf, additionalProperties… may say what the argument is.
      let kept = value;
      if (schema !== undefined) {
        const hidden = redacted({ [argument]: value }, schema, schema, 0);
        kept = hidden === SENSITIVE ? SENSITIVE : (hidden as Record<string, unknown>)[argument];
      }
      // Nested deeper than a logger can write (its JSON.stringify would throw, and the entry be lost): hidden whole.
      setOwn(recorded, argument, deeperThan(kept, MAX_DEPTH) ? SENSITIVE : kept);
    }
    return recorded;
  }
}

/** The caller as `callerOf` sees it, from what an observer hears. */
function callerOf(request: ObservedRequest): AuditCaller {
  // The subject, as `callerOf` names it (its key, which the issuer qualifies, is not needed here).
  if (request.principal !== undefined) return { kind: 'principal', id: request.principal.subject };
  if (request.clientAddress !== undefined) return { kind: 'address', id: request.clientAddress };
  // Over HTTP (tcp) from an address the host does not know: still the network, not the local client.
  // A new object per entry all the same: a logger may redact in place (pino's redact does).
  return request.networkTransport === 'tcp' ? { kind: 'address', id: 'unknown' } : { kind: 'local' };
}

/** The item a request names, from its params alone (an unknown name is worth recording too). */
function itemNamed(request: ObservedRequest): string | undefined {
  const { name, uri } = request.params;
  switch (request.method) {
    case 'tools/call':
    case 'prompts/get':
      return typeof name === 'string' ? clip(name) : undefined;
    case 'resources/read':
    case 'resources/subscribe':
    case 'resources/unsubscribe':
      return typeof uri === 'string' ? clip(uri) : undefined;
    default:
      return undefined;
  }
}

/** How deep `redacted` follows a value and its schema: deeper, the value is hidden whole (a recursive schema and a value nested beyond the stack). */
const MAX_DEPTH = 64;

/** Keywords whose schemas all apply to the value as well: `redacted` follows each. */
const BRANCHES = ['allOf', 'anyOf', 'oneOf'] as const;

/**
 * A value with what its schema says is `writeOnly` replaced by `"[sensitive]"`: the value
 * itself, or the properties and items inside it (a nested DTO with a `@Sensitive` field),
 * following `$ref` (to any place of the tool's schema: `$defs`, `definitions`, …), every
 * branch of `allOf`, `anyOf`, `oneOf`, `if`'s `then` and `else`, `properties`,
 * `patternProperties`, `additionalProperties`, `prefixItems` and `items`. What it cannot follow
 * (a `$ref` to another document, a value nested deeper than `MAX_DEPTH`) is hidden whole.
 */
function redacted(value: unknown, schema: JsonSchema | undefined, root: JsonSchema, depth: number): unknown {
  if (root.writeOnly === true) return SENSITIVE;
  if (schema === undefined) return value;
  if (schema.writeOnly === true || depth > MAX_DEPTH) return SENSITIVE;
  let out = value;
  if (typeof schema.$ref === 'string') {
    const target = resolve(root, schema.$ref);
    // What it points to may be a secret: what cannot be read is hidden.
    if (target === undefined) return SENSITIVE;
    out = redacted(out, target, root, depth + 1);
  }
  for (const keyword of BRANCHES) {
    const branches = schema[keyword];
    if (Array.isArray(branches)) for (const branch of branches) if (isSchema(branch)) out = redacted(out, branch, root, depth + 1);
  }
  for (const keyword of ['then', 'else'] as const) {
    const branch = schema[keyword];
    if (isSchema(branch)) out = redacted(out, branch, root, depth + 1);
  }
  if (out === SENSITIVE) return out;
  if (Array.isArray(out)) {
    const prefix = Array.isArray(schema.prefixItems) ? (schema.prefixItems as unknown[]) : undefined;
    const items = isSchema(schema.items) ? schema.items : undefined;
    if (prefix === undefined && items === undefined) return out;
    return out.map((item, i) => {
      const positional = prefix !== undefined && i < prefix.length ? prefix[i] : undefined;
      return redacted(item, isSchema(positional) ? positional : items, root, depth + 1);
    });
  }
  if (typeof out === 'object' && out !== null) {
    const properties = isSchema(schema.properties) ? schema.properties : undefined;
    const patterns = isSchema(schema.patternProperties) ? schema.patternProperties : undefined;
    const additional = isSchema(schema.additionalProperties) ? schema.additionalProperties : undefined;
    if (properties === undefined && patterns === undefined && additional === undefined) return out;
    const copy: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(out)) {
      let kept = inner;
      let named = false;
      const property = properties !== undefined && Object.prototype.hasOwnProperty.call(properties, key) ? properties[key] : undefined;
      if (isSchema(property)) {
        kept = redacted(kept, property, root, depth + 1);
        named = true;
      }
      if (patterns !== undefined) {
        for (const [pattern, sub] of Object.entries(patterns)) {
          if (isSchema(sub) && matches(pattern, key)) {
            kept = redacted(kept, sub, root, depth + 1);
            named = true;
          }
        }
      }
      if (!named && additional !== undefined) kept = redacted(kept, additional, root, depth + 1);
      setOwn(copy, key, kept);
    }
    return copy;
  }
  return out;
}

/** Whether `value` has objects or arrays nested more than `levels` deep. */
function deeperThan(value: unknown, levels: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (levels === 0) return true;
  for (const inner of Array.isArray(value) ? value : Object.values(value)) if (deeperThan(inner, levels - 1)) return true;
  return false;
}

/** Sets an own property, "__proto__" included (an assignment would set the prototype instead). */
function setOwn(record: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
  else record[key] = value;
}

/** patternProperties' patterns, compiled once each. */
const patternCache = new Map<string, RegExp | undefined>();

/** Whether `key` matches a patternProperties pattern; a pattern that does not compile matches (its schema may mark a secret). */
function matches(pattern: string, key: string): boolean {
  let compiled = patternCache.get(pattern);
  if (compiled === undefined && !patternCache.has(pattern)) {
    try {
      compiled = new RegExp(pattern, 'u');
    } catch {
      compiled = undefined;
    }
    if (patternCache.size < 1_000) patternCache.set(pattern, compiled);
  }
  return compiled === undefined || compiled.test(key);
}

/** A reference into the tool's own schema (`#`, `#/$defs/…`, `#/definitions/…`, any JSON pointer); another document's reaches nothing here. */
function resolve(root: JsonSchema, ref: string): JsonSchema | undefined {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let at: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    let token: string;
    try {
      token = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    } catch {
      return undefined;
    }
    if (typeof at !== 'object' || at === null || !Object.prototype.hasOwnProperty.call(at, token)) return undefined;
    at = (at as Record<string, unknown>)[token];
  }
  return isSchema(at) ? at : undefined;
}

function isSchema(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Only ASCII: its UTF-8 bytes are its characters. */
const ASCII = /^[\x00-\x7f]*$/;

/** UTF-8 bytes of a value as JSON (written once, counted without encoding it); 0 for what JSON cannot write. */
export function jsonBytes(value: unknown): number {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    return 0;
  }
  if (text === undefined) return 0;
  return ASCII.test(text) ? text.length : utf8Bytes(text);
}

function utf8Bytes(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i++;
    } else bytes += 3; // JSON.stringify escapes a lone surrogate, so this is the rest of the BMP
  }
  return bytes;
}

function clip(text: string): string {
  return text.length <= MAX_TEXT ? text : `${text.slice(0, MAX_TEXT)}…`;
}

function checkOptions(options: AuditLogOptions | undefined): { logger: AuditLogger; fields: AuditLogOptions['arguments'] } {
  if (typeof options !== 'object' || options === null) throw new TypeError(`${NAME}: options are required: { logger, arguments? }`);
  const { logger } = options;
  if (typeof logger !== 'object' || logger === null || typeof logger.info !== 'function') {
    throw new TypeError(`${NAME}: options.logger must have an info(object, message?) function (a pino logger, or jsonLinesLogger())`);
  }
  if (logger.warn !== undefined && typeof logger.warn !== 'function') throw new TypeError(`${NAME}: options.logger.warn must be a function when given`);
  const fields = options.arguments;
  if (fields === undefined) return { logger, fields };
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) throw new TypeError(`${NAME}: options.arguments must be an object: { tools: { <tool>: [<argument>, …] } }`);
  for (const key of Object.keys(fields)) {
    if (key !== 'tools') {
      throw new DefinitionError('INVALID_OPTION', `${NAME}: options.arguments.${key} is not an option: only tools' arguments are recorded (a tool's listed schema says which are sensitive)`);
    }
  }
  const tools = fields.tools;
  if (tools === undefined) return { logger, fields };
  if (typeof tools !== 'object' || tools === null || Array.isArray(tools)) throw new TypeError(`${NAME}: options.arguments.tools must be an object of argument names by tool name`);
  for (const [tool, names] of Object.entries(tools)) checkNames(names, `${NAME}: options.arguments.tools.${tool}`);
  return { logger, fields };
}

function checkNames(names: unknown, where: string): void {
  if (!Array.isArray(names) || names.some((name) => typeof name !== 'string' || name === '')) {
    throw new TypeError(`${where} must be a list of argument names (non-empty strings)`);
  }
}
