/**
 * The official MCP JSON Schemas as an oracle: nothing a server sends may fail the schema of
 * the protocol version it speaks. The schemas are read from ../schemas/<version>/schema.json
 * (unchanged copies of the official files; see schemas/README.md) and compiled lazily, once
 * per version.
 */
import fs from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { HANDSHAKE_VERSIONS, LATEST_MODERN_VERSION } from '@typemcp/core';
import { extensionResultSchemas } from './extensionSchemas';

/** The versions with an `initialize` handshake: the ones the official SDK client can speak. */
export const SUPPORTED_SPEC_VERSIONS = HANDSHAKE_VERSIONS;

/** The session-less era: no handshake, every request carries its context in `_meta`. */
export const MODERN_SPEC_VERSION = LATEST_MODERN_VERSION;

/** Every revision whose official schema this package ships and checks against. */
export const ALL_SPEC_VERSIONS = [...SUPPORTED_SPEC_VERSIONS, MODERN_SPEC_VERSION] as const;

/** A revision with an official schema here. */
export type SpecVersion = (typeof ALL_SPEC_VERSIONS)[number];

/** The official schema.json of every revision, shipped with this package. */
export const SCHEMAS_DIR = path.resolve(__dirname, '..', 'schemas');

/** Path of the official JSON Schema of one protocol revision. */
export function schemaFile(version: string): string {
  return path.join(SCHEMAS_DIR, version, 'schema.json');
}

/** What `validateServerMessage` is told beside the message. */
export interface ServerMessageOptions {
  /** Method of the client request this message answers; enables the check of `result`. */
  requestMethod?: string;
}

/**
 * A message the server sent, as `expectValidServerMessages` takes it: the message and the
 * method of the request it answers.
 */
export interface RecordedServerMessage extends ServerMessageOptions {
  message: unknown;
}

/**
 * The result definition of each client request. The schemas do not link a request to its
 * result, so this table does; requests without a specific result answer with EmptyResult.
 */
const RESULT_DEFINITIONS: Readonly<Record<string, string>> = {
  initialize: 'InitializeResult',
  ping: 'EmptyResult',
  'server/discover': 'DiscoverResult',
  'tools/list': 'ListToolsResult',
  'tools/call': 'CallToolResult',
  'resources/list': 'ListResourcesResult',
  'resources/templates/list': 'ListResourceTemplatesResult',
  'resources/read': 'ReadResourceResult',
  'resources/subscribe': 'EmptyResult',
  'resources/unsubscribe': 'EmptyResult',
  'subscriptions/listen': 'SubscriptionsListenResult',
  'prompts/list': 'ListPromptsResult',
  'prompts/get': 'GetPromptResult',
  'completion/complete': 'CompleteResult',
  'logging/setLevel': 'EmptyResult',
  'tasks/get': 'GetTaskResult',
  'tasks/result': 'GetTaskPayloadResult',
  'tasks/cancel': 'CancelTaskResult',
  'tasks/list': 'ListTasksResult',
};

interface SpecValidators {
  version: string;
  /** `definitions` (draft-07 files) or `$defs` (2020-12 files). */
  defsKey: 'definitions' | '$defs';
  definitions: Record<string, SchemaNode>;
  ajv: Ajv;
  compiled: Map<string, ValidateFunction>;
  /** method → definition name, read from the union definitions of the schema itself. */
  serverRequests: Map<string, string> | undefined;
  serverNotifications: Map<string, string> | undefined;
  clientRequests: Map<string, string>;
  /** Methods whose result may be an InputRequiredResult (2026-07-28 and later). */
  inputRequiredMethods: Set<string>;
  /** Results of official extensions' methods (skills), checked against schemas of their own. */
  extensionResults: Map<string, ValidateFunction>;
}

interface SchemaNode {
  $ref?: string;
  anyOf?: SchemaNode[];
  properties?: Record<string, SchemaNode>;
  const?: unknown;
  [key: string]: unknown;
}

const cache = new Map<string, SpecValidators>();

function load(version: string): SpecValidators {
  const cached = cache.get(version);
  if (cached) return cached;

  const file = schemaFile(version);
  if (!fs.existsSync(file)) {
    throw new Error(`No MCP schema for version '${version}' (looked for ${file}); known: ${ALL_SPEC_VERSIONS.join(', ')}`);
  }
  const schema = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
  const dialect = String(schema.$schema ?? '');
  // The official schemas are not written for ajv's strict mode (unknown keywords, union types).
  // verbose: errors carry the failing value and schema, used to narrow unions in reports.
  const options = { strict: false, allErrors: true, verbose: true } as const;
  let ajv: Ajv;
  if (dialect.includes('2020-12')) ajv = new Ajv2020(options) as unknown as Ajv;
  else if (dialect.includes('draft-07')) ajv = new Ajv(options);
  else throw new Error(`Unexpected $schema '${dialect}' in ${file}`);
  addFormats(ajv);
  ajv.addSchema(schema, schemaKey(version));

  const defsKey = schema.$defs ? '$defs' : 'definitions';
  const definitions = schema[defsKey] as Record<string, SchemaNode>;
  const methodsOf = (union: string): Map<string, string> | undefined => {
    const node = definitions[union];
    if (!node) return undefined;
    const methods = new Map<string, string>();
    for (const member of node.anyOf ?? []) {
      const name = refName(member.$ref);
      const method = definitions[name]?.properties?.method?.const;
      if (typeof method === 'string') methods.set(method, name);
    }
    return methods;
  };

  const clientRequests = methodsOf('ClientRequest') ?? new Map<string, string>();
  const inputRequiredMethods = new Set<string>();
  if (definitions.InputRequiredResult) {
    // 2026-07-28 says per method whether InputRequiredResult may answer it: <Result>Response.result.anyOf.
    for (const method of clientRequests.keys()) {
      const resultName = RESULT_DEFINITIONS[method];
      const members = definitions[`${resultName}Response`]?.properties?.result?.anyOf ?? [];
      if (members.some((m) => refName(m.$ref) === 'InputRequiredResult')) inputRequiredMethods.add(method);
    }
  }

  const validators: SpecValidators = {
    version,
    defsKey,
    definitions,
    ajv,
    compiled: new Map(),
    serverRequests: methodsOf('ServerRequest'),
    serverNotifications: methodsOf('ServerNotification'),
    clientRequests,
    inputRequiredMethods,
    extensionResults: new Map(
      Object.entries(extensionResultSchemas((name) => `${schemaKey(version)}#/${defsKey}/${name}`, definitions.InputRequiredResult !== undefined)).map(([method, extension]) => [method, ajv.compile(extension)]),
    ),
  };
  cache.set(version, validators);
  return validators;
}

function schemaKey(version: string): string {
  return `mcp-${version}`;
}

function refName(ref: string | undefined): string {
  return ref ? ref.slice(ref.lastIndexOf('/') + 1) : '';
}

/** Validates `data` against one named definition; errors are prefixed with `at` (a JSON pointer). */
function check(spec: SpecValidators, definition: string, data: unknown, at = ''): string[] {
  let validate = spec.compiled.get(definition);
  if (!validate) {
    validate = spec.ajv.compile({ $ref: `${schemaKey(spec.version)}#/${spec.defsKey}/${definition}` });
    spec.compiled.set(definition, validate);
  }
  if (validate(data)) return [];
  return describeErrors(spec, validate.errors ?? [], definition, at);
}

/**
 * A failed anyOf reports every member's complaints, mostly noise. When the members are tagged by
 * a `type` const (content blocks, completion references), the value's own `type` picks the one
 * member that matters, and only its errors are reported.
 */
function describeErrors(spec: SpecValidators, errors: ErrorObject[], definition: string, at: string): string[] {
  const narrowed = new Map<string, string[]>();
  const unions = errors.filter((e) => e.keyword === 'anyOf').sort((a, b) => a.instancePath.length - b.instancePath.length);
  const isUnder = (p: string, root: string) => p === root || p.startsWith(`${root}/`);
  for (const union of unions) {
    const where = union.instancePath;
    if ([...narrowed.keys()].some((root) => isUnder(where, root))) continue;
    const value = union.data;
    if (!isObject(value) || typeof value.type !== 'string' || !Array.isArray(union.schema)) continue;
    const members = (union.schema as SchemaNode[]).map((m) => {
      const name = refName(m.$ref);
      return { name, tag: spec.definitions[name]?.properties?.type?.const };
    });
    if (members.some((m) => typeof m.tag !== 'string')) continue;
    const matching = members.filter((m) => m.tag === value.type);
    if (matching.length === 1) {
      narrowed.set(where, check(spec, matching[0].name, value, `${at}${where}`));
    } else if (matching.length === 0) {
      const names = members.map((m) => `${m.name} (${JSON.stringify(m.tag)})`).join(', ');
      narrowed.set(where, [`${at}${where}/type ${JSON.stringify(value.type)} is none of ${names} (${definition})`]);
    }
  }
  const roots = [...narrowed.keys()];
  const rest = errors.filter((e) => !roots.some((root) => isUnder(e.instancePath, root)));
  return [...new Set([...formatErrors(rest, definition, at), ...[...narrowed.values()].flat()])];
}

function formatErrors(errors: ErrorObject[], definition: string, at: string): string[] {
  return errors.map((e) => {
    const where = `${at}${e.instancePath}` || '/';
    let detail = '';
    if (e.keyword === 'const') detail = ` ${JSON.stringify(e.params.allowedValue)}`;
    else if (e.keyword === 'enum') detail = ` ${JSON.stringify(e.params.allowedValues)}`;
    else if (e.keyword === 'additionalProperties') detail = ` '${e.params.additionalProperty}'`;
    return `${where} ${e.message}${detail} (${definition})`;
  });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function has(object: Record<string, unknown>, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(object, key);
}

/**
 * Every schema violation of one message the server sent, [] when it is valid. Requests and
 * notifications are checked against the definition of their method (`ServerRequest` /
 * `ServerNotification` members); a result is checked against the result of `requestMethod`
 * when given, otherwise only the JSON-RPC envelope and the generic `Result` are.
 */
export function validateServerMessage(version: string, message: unknown, options: ServerMessageOptions = {}): string[] {
  const spec = load(version);
  if (Array.isArray(message)) {
    // Only 2025-03-26 has JSON-RPC batches; elsewhere JSONRPCMessage rejects the array.
    if (!spec.definitions.JSONRPCBatchResponse) return check(spec, 'JSONRPCMessage', message);
    if (message.length === 0) return check(spec, 'JSONRPCMessage', message);
    return message.flatMap((item, i) => validateServerMessage(version, item, {}).map((e) => `[${i}] ${e}`));
  }
  if (!isObject(message)) return check(spec, 'JSONRPCMessage', message);

  if (has(message, 'method')) {
    const isRequest = has(message, 'id');
    const envelope = check(spec, isRequest ? 'JSONRPCRequest' : 'JSONRPCNotification', message);
    if (envelope.length > 0) return envelope;
    const union = isRequest ? 'ServerRequest' : 'ServerNotification';
    const methods = isRequest ? spec.serverRequests : spec.serverNotifications;
    if (!methods) return [`${version} has no ${union}: a server speaking it sends no ${isRequest ? 'requests' : 'notifications'}`];
    const method = String(message.method);
    const definition = methods.get(method);
    if (!definition) return [`/method '${method}' is not a ${union} in ${version} (known: ${[...methods.keys()].join(', ')})`];
    return check(spec, definition, message);
  }

  if (has(message, 'result')) {
    const envelopeDefinition = spec.definitions.JSONRPCResultResponse ? 'JSONRPCResultResponse' : 'JSONRPCResponse';
    let errors = check(spec, envelopeDefinition, message);
    if (has(message, 'error')) errors.push('/ has both result and error (JSON-RPC 2.0 allows exactly one)');
    if (options.requestMethod === undefined) return errors;
    // The specific result definition says more about /result than the envelope's generic Result.
    errors = errors.filter((e) => !e.startsWith('/result'));
    return [...errors, ...checkResult(spec, options.requestMethod, message.result)];
  }

  if (has(message, 'error')) {
    if (!spec.definitions.JSONRPCErrorResponse && !has(message, 'id')) {
      // Up to 2025-06-18 an error must carry a non-null id, so an error about a message whose
      // id could not be read (a parse error) has no valid form there. 2025-11-25 made the id
      // optional for exactly this case; such errors are held to that definition instead.
      return check(load(ID_OPTIONAL_ERRORS_VERSION), 'JSONRPCErrorResponse', message);
    }
    return check(spec, spec.definitions.JSONRPCErrorResponse ? 'JSONRPCErrorResponse' : 'JSONRPCError', message);
  }

  return check(spec, 'JSONRPCMessage', message);
}

/** Whether `method` is a request a client may send in `version` (extension methods are not). */
export function isClientRequestMethod(version: string, method: string): boolean {
  return load(version).clientRequests.has(method);
}

/** The first revision whose error responses may omit the id. */
const ID_OPTIONAL_ERRORS_VERSION = '2025-11-25';

function checkResult(spec: SpecValidators, method: string, result: unknown): string[] {
  const extension = spec.extensionResults.get(method);
  if (extension && !spec.clientRequests.has(method)) {
    return extension(result) ? [] : formatErrors(extension.errors ?? [], `the ${method} result of its extension`, '/result');
  }
  if (!spec.clientRequests.has(method)) {
    return [`/result answers '${method}', which is not a client request in ${spec.version}; expected an error response`];
  }
  if (isObject(result) && result.resultType === 'input_required' && spec.definitions.InputRequiredResult) {
    if (!spec.inputRequiredMethods.has(method)) {
      return [`/result/resultType 'input_required' is not allowed for '${method}' in ${spec.version} (allowed for: ${[...spec.inputRequiredMethods].join(', ')})`];
    }
    return check(spec, 'InputRequiredResult', result, '/result');
  }
  const definition = RESULT_DEFINITIONS[method];
  if (!definition || !spec.definitions[definition]) {
    return [`no result definition known for '${method}' in ${spec.version}; add it to RESULT_DEFINITIONS`];
  }
  return check(spec, definition, result, '/result');
}

/** Throws a readable report of every message that fails the schema of `version`. */
export function expectValidServerMessages(version: string, messages: ReadonlyArray<RecordedServerMessage>): void {
  const failures: string[] = [];
  messages.forEach(({ message, requestMethod }, index) => {
    const errors = validateServerMessage(version, message, { requestMethod });
    if (errors.length === 0) return;
    const what = requestMethod !== undefined ? ` (response to ${requestMethod})` : '';
    failures.push(`#${index}${what} ${preview(message)}\n${errors.map((e) => `    - ${e}`).join('\n')}`);
  });
  if (failures.length > 0) {
    throw new Error(
      `${failures.length} of ${messages.length} server messages do not match the ${version} schema:\n\n${failures.join('\n\n')}`,
    );
  }
}

function preview(message: unknown): string {
  const text = JSON.stringify(message) ?? String(message);
  return text.length > 400 ? `${text.slice(0, 400)}…` : text;
}
