import { DefinitionError, InvalidParamsError } from '../errors';
import type { Icon, ResourceAnnotations, ToolAnnotations } from '../metadata';
import type { Revision } from '../protocol';
import { MAX_COMPLETION_VALUES, noCompletion } from '../items/completion';
import { describeFor, perRevision } from '../items/describe';
import { headerParamsOf } from '../items/headerParams';
import type { Catalog } from '../items/Catalog';
import type { PromptItem } from '../items/PromptItem';
import type { ResourceItem, TemplateItem } from '../items/ResourceItem';
import { callChecked, rawValidator, runGuarded, TOOL_NAME, toolErrorResult } from '../items/ToolItem';
import type { CallToolResult, FailureHost, ToolItem } from '../items/ToolItem';
import type { Context } from '../runtime/Context';
import type { InvocationTarget } from '../runtime/middleware';
import type { Registry } from '../runtime/Registry';
import { lazySchemaValidator } from '../validation';
import type { DtoValidator } from '../validation';
import { UriTemplate } from '../uri';

/** Who may see and use an item served elsewhere: as `@Public`, `@Scopes` and `@Roles` say it. */
export interface RemoteAccess {
  /** Anyone, anonymous callers too, even on a server with authentication. */
  readonly public?: boolean;
  /** Every one of these OAuth scopes. */
  readonly scopes?: readonly string[];
  /** One of these roles. */
  readonly roles?: readonly string[];
}

/** The descriptive fields every listing may carry; each goes out where the client's revision has it. */
interface RemoteDescription {
  title?: string;
  description?: string;
  icons?: Icon[];
  _meta?: Record<string, unknown>;
}

/** A tool as `tools/list` shows it. */
export interface RemoteToolListing extends RemoteDescription {
  name: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: ToolAnnotations;
}

/** A tool something else runs: a proxied server's, an HTTP API's. */
export interface RemoteTool {
  readonly listing: RemoteToolListing;
  /**
   * Checks the arguments against `listing.inputSchema` (JSON Schema 2020-12) before `call`, and
   * the result's `structuredContent` against `listing.outputSchema`; a failure is an `isError`
   * result naming what is wrong. Each schema compiles on the first call. Default false: the
   * other side checks.
   */
  readonly validate?: boolean;
  readonly access?: RemoteAccess;
  /** Runs the call; resolves with its `CallToolResult`. A `ToolError` becomes an `isError` result, an `McpError` the JSON-RPC error. */
  call(args: Record<string, unknown>, ctx: Context): Promise<Record<string, unknown>>;
}

/** Completes one argument of a remote prompt or template: `completion/complete`'s `completion`. */
export type RemoteCompleter = (
  argument: { name: string; value: string },
  context: { arguments?: Record<string, string> } | undefined,
  ctx: Context,
) => Promise<{ values: string[]; total?: number; hasMore?: boolean }>;

/** A prompt something else answers for: a proxied server's. `get` renders it. */
export interface RemotePrompt {
  readonly listing: RemoteDescription & { name: string; arguments?: Array<{ name: string; title?: string; description?: string; required?: boolean }> };
  readonly access?: RemoteAccess;
  /** Resolves with the `GetPromptResult`. */
  get(args: Record<string, string>, ctx: Context): Promise<Record<string, unknown>>;
  readonly complete?: RemoteCompleter;
}

interface RemoteReadable {
  readonly access?: RemoteAccess;
  /** Resolves with the `ReadResourceResult` of `uri`. */
  read(uri: string, ctx: Context): Promise<Record<string, unknown>>;
}

/** A resource something else reads: a proxied server's. */
export interface RemoteResource extends RemoteReadable {
  readonly listing: RemoteDescription & { uri: string; name: string; mimeType?: string; size?: number; annotations?: ResourceAnnotations };
}

/** A resource template something else reads and completes: a proxied server's. */
export interface RemoteTemplate extends RemoteReadable {
  readonly listing: RemoteDescription & { uriTemplate: string; name: string; mimeType?: string; annotations?: ResourceAnnotations };
  readonly complete?: RemoteCompleter;
}

/** Items a server shows and something else answers for (`server.remote`). */
export interface RemoteItems {
  tools?: readonly RemoteTool[];
  prompts?: readonly RemotePrompt[];
  resources?: readonly RemoteResource[];
  templates?: readonly RemoteTemplate[];
}

/** The items `server.remote` added, to change as their source changes. */
export interface RemoteCatalog {
  /**
   * Replaces the items with these: only what changed is swapped, and clients hear
   * list_changed for it. An item whose name the server already has for one of its own is left
   * out and reported (`onError`).
   */
  update(items: RemoteItems): void;
  /** Takes every item out; clients hear list_changed. */
  remove(): void;
}

/** What a catalog needs of the server it fills. */
export interface RemoteHost extends Catalog, FailureHost {
  /** Throws when `name` is not free where the server is mounted (or is tool search's). */
  checkToolName(name: string, where: string): void;
  checkFree(kind: 'prompt' | 'resource' | 'template', key: string, where: string): void;
  capabilitiesChanged(): void;
}

type Kind = 'tool' | 'prompt' | 'resource' | 'template';
type Spec = RemoteTool | RemotePrompt | RemoteResource | RemoteTemplate;
type Item = ToolItem | PromptItem | ResourceItem | TemplateItem;

/** One shown item: what it was made from (the latest spec answers), and its fingerprint. */
interface Shown {
  spec: Spec;
  readonly item: Item;
  readonly fingerprint: string;
}

const WHERE = 'server.remote';

/** Items served elsewhere, kept in the server's registries as they change. */
export class RemoteItemSet implements RemoteCatalog {
  private readonly shown = new Map<Kind, Map<string, Shown>>(KINDS.map((kind) => [kind, new Map()]));
  /** Stands for the items' "class" in access rules and middleware targets. */
  private readonly provider = class RemoteItems {};
  private removed = false;

  constructor(private readonly host: RemoteHost) {}

  /** Whether some prompt or template completes its arguments here. */
  get completes(): boolean {
    for (const kind of ['prompt', 'template'] as const) for (const { spec } of this.shown.get(kind)!.values()) if ((spec as RemotePrompt).complete) return true;
    return false;
  }

  /** The first fill: a name the server has already fails it, adding nothing. */
  fill(items: RemoteItems): void {
    const keys = new Set<string>();
    for (const [kind, spec] of specsOf(items)) {
      const key = `${kind}\u0000${keyOf(kind, spec)}`;
      if (keys.has(key)) throw new DefinitionError('DUPLICATE_NAME', `${WHERE}: two ${kind}s are named "${keyOf(kind, spec)}"`);
      keys.add(key);
      if (registryOf(this.host, kind).has(keyOf(kind, spec))) throw taken(kind, keyOf(kind, spec));
      this.checkFree(kind, keyOf(kind, spec));
    }
    this.apply(items, true);
  }

  update(items: RemoteItems): void {
    if (this.removed) throw new DefinitionError('INVALID_OPTION', `${WHERE}: these items were removed; call server.remote again`);
    this.apply(items, false);
  }

  remove(): void {
    if (this.removed) return;
    this.removed = true;
    for (const kind of KINDS) {
      for (const [key, { item }] of this.shown.get(kind)!) {
        registryOf(this.host, kind).removeIfHolds(key, item);
        this.host.access.forget(item.target);
      }
      this.shown.get(kind)!.clear();
    }
    this.host.capabilitiesChanged();
  }

  private apply(items: RemoteItems, strict: boolean): void {
    const completedBefore = this.completes;
    const wanted = new Map<Kind, Map<string, Spec>>(KINDS.map((kind) => [kind, new Map()]));
    const skip = strict ? undefined : (error: unknown) => this.host.reportError(`${WHERE}: an item is not shown`, error);
    for (const [kind, spec] of specsOf(items, skip)) wanted.get(kind)!.set(keyOf(kind, spec), spec);
    for (const kind of KINDS) {
      const registry = registryOf(this.host, kind);
      const shown = this.shown.get(kind)!;
      for (const [key, entry] of shown) {
        const next = wanted.get(kind)!.get(key);
        if (next && fingerprintOf(next) === entry.fingerprint && registry.itemNamed(key) === entry.item) continue;
        registry.removeIfHolds(key, entry.item);
        this.host.access.forget(entry.item.target);
        shown.delete(key);
      }
      for (const [key, spec] of wanted.get(kind)!) {
        const known = shown.get(key);
        if (known) {
          known.spec = spec; // same listing: the newest functions answer
          continue;
        }
        try {
          if (registry.has(key)) throw taken(kind, key);
          this.checkFree(kind, key);
          const holder = { spec } as Shown;
          const item = this.build(kind, spec, () => holder.spec);
          registry.add(key, item, WHERE);
          shown.set(key, Object.assign(holder, { item, fingerprint: fingerprintOf(spec) }));
        } catch (error) {
          if (strict) throw error;
          this.host.reportError(`${WHERE}: the ${kind} "${key}" is not shown`, error);
        }
      }
    }
    if (this.completes !== completedBefore) this.host.capabilitiesChanged();
  }

  private checkFree(kind: Kind, key: string): void {
    if (kind === 'tool') this.host.checkToolName(key, WHERE);
    else this.host.checkFree(kind, key, WHERE);
  }

  private build(kind: Kind, spec: Spec, latest: () => Spec): Item {
    const key = keyOf(kind, spec);
    const target: InvocationTarget = { kind: kind === 'template' ? 'resource' : kind, name: key, provider: this.provider, methodName: `${kind}:${key}` };
    this.host.access.define(target, spec.access ?? {});
    if (kind === 'tool') return buildRemoteTool(spec as RemoteTool, target, () => latest() as RemoteTool, this.host);
    if (kind === 'prompt') return buildRemotePrompt(spec as RemotePrompt, target, () => latest() as RemotePrompt);
    if (kind === 'resource') return buildRemoteResource(spec as RemoteResource, target, () => latest() as RemoteResource);
    return buildRemoteTemplate(spec as RemoteTemplate, target, () => latest() as RemoteTemplate);
  }
}

const KINDS: readonly Kind[] = ['tool', 'prompt', 'resource', 'template'];

/** The specs of `items`; a malformed one throws, or with `skip` is reported and left out. */
function* specsOf(items: RemoteItems, skip?: (error: unknown) => void): Generator<[Kind, Spec]> {
  if (typeof items !== 'object' || items === null) throw new DefinitionError('INVALID_OPTION', `${WHERE}: give { tools, prompts, resources, templates }`);
  const lists: Array<[Kind, readonly Spec[] | undefined]> = [
    ['tool', items.tools],
    ['prompt', items.prompts],
    ['resource', items.resources],
    ['template', items.templates],
  ];
  for (const [kind, list] of lists) {
    if (list === undefined) continue;
    if (!Array.isArray(list)) throw new DefinitionError('INVALID_OPTION', `${WHERE}: ${kind}s must be an array`);
    for (const spec of list) {
      try {
        checkSpec(kind, spec);
      } catch (error) {
        if (!skip) throw error;
        skip(error);
        continue;
      }
      yield [kind, spec];
    }
  }
}

function checkSpec(kind: Kind, spec: Spec): void {
  const listing = spec?.listing as unknown as Record<string, unknown> | undefined;
  const fn = kind === 'tool' ? 'call' : kind === 'prompt' ? 'get' : 'read';
  if (typeof listing !== 'object' || listing === null) throw new DefinitionError('INVALID_OPTION', `${WHERE}: every ${kind} needs a listing`);
  if (typeof (spec as unknown as Record<string, unknown>)[fn] !== 'function') throw new DefinitionError('INVALID_OPTION', `${WHERE}: the ${kind} "${keyOf(kind, spec)}" needs ${fn}()`);
  const key = keyOf(kind, spec);
  if (typeof key !== 'string' || key === '') throw new DefinitionError('INVALID_OPTION', `${WHERE}: a ${kind} has no ${kind === 'tool' || kind === 'prompt' ? 'name' : kind === 'resource' ? 'uri' : 'uriTemplate'}`);
  if (kind === 'tool') {
    if (!TOOL_NAME.test(key)) throw new DefinitionError('INVALID_OPTION', `${WHERE}: tool name "${key}" must be 1-128 characters of A-Z, a-z, 0-9, "_", "-" or "."`);
    const schema = listing.inputSchema as Record<string, unknown> | undefined;
    if (typeof schema !== 'object' || schema === null || schema.type !== 'object') throw new DefinitionError('INVALID_OPTION', `${WHERE}: the tool "${key}" needs an inputSchema of type "object"`);
  }
}

function keyOf(kind: Kind, spec: Spec): string {
  const listing = spec.listing as unknown as Record<string, unknown>;
  return (kind === 'tool' || kind === 'prompt' ? listing.name : kind === 'resource' ? listing.uri : listing.uriTemplate) as string;
}

/** What makes two specs the same item: the listing, who may use it, how it checks and completes. */
function fingerprintOf(spec: Spec): string {
  const { access, validate, complete } = spec as Spec & { validate?: boolean; complete?: unknown };
  return JSON.stringify([spec.listing, access ?? null, validate === true, complete !== undefined]);
}

function registryOf(host: RemoteHost, kind: Kind): Registry<Item> {
  return (kind === 'tool' ? host.tools : kind === 'prompt' ? host.prompts : kind === 'resource' ? host.resources : host.templates) as Registry<Item>;
}

function taken(kind: Kind, key: string): DefinitionError {
  return new DefinitionError('DUPLICATE_NAME', `${WHERE}: the server already has a ${kind} named "${key}"`);
}

/** Accepts any arguments object as it is: the other side validates. */
const AS_GIVEN: DtoValidator<unknown> = { validate: (args) => ({ ok: true, value: args }) };

/**
 * Compiled on the tool's first call: an API of a thousand operations would otherwise compile a
 * thousand schemas before serving. A schema that does not compile fails that call, naming it.
 */
function lazyValidator(schema: Record<string, unknown>, where: string): DtoValidator<unknown> {
  let compiled: DtoValidator<unknown> | undefined;
  return { validate: (args) => (compiled ??= rawValidator(schema, where)).validate(args) };
}

function buildRemoteTool(spec: RemoteTool, target: InvocationTarget, latest: () => RemoteTool, host: FailureHost): ToolItem {
  const { listing } = spec;
  const name = listing.name;
  const where = `${WHERE}: tool "${name}"`;
  const inputSchema = listing.inputSchema;
  const described = perRevision((revision: Revision) => {
    const entry = describeFor(revision, { name }, listing);
    entry.inputSchema = inputSchema;
    if (revision.titlesAndStructuredOutput && listing.outputSchema) entry.outputSchema = listing.outputSchema;
    if (revision.toolAnnotations && listing.annotations) entry.annotations = listing.annotations;
    return entry;
  });
  let headerParams: ToolItem['headerParams'];
  try {
    headerParams = headerParamsOf(inputSchema, where);
  } catch {
    headerParams = []; // marks this server cannot honour are left to the other side
  }
  // A checked tool keeps the listing's promise: structured content that breaks the output schema does not go out.
  const checksOutput = spec.validate === true && listing.outputSchema !== undefined;
  const outputValidator = checksOutput ? lazySchemaValidator(listing.outputSchema!) : undefined;
  const checkOutput = (result: Record<string, unknown>): Record<string, unknown> => {
    if (result.isError === true || result.structuredContent === undefined) return result;
    const problems = outputValidator!(result.structuredContent);
    return problems.length === 0 ? result : toolErrorResult(`Tool "${name}" returned a result that does not match its output schema: ${problems.join('; ')}`);
  };
  const inputValidator = spec.validate ? lazyValidator(inputSchema, where) : AS_GIVEN;
  // The other side answers with a whole CallToolResult: nothing is shaped here.
  const run = (input: unknown, ctx: Context) =>
    runGuarded(name, host, ctx, () => {
      const called = latest().call((input ?? {}) as Record<string, unknown>, ctx);
      return (checksOutput ? called.then(checkOutput) : called) as Promise<CallToolResult>;
    });
  return {
    name,
    target,
    inputSchema,
    annotations: listing.annotations,
    headerParams,
    taskSupport: 'forbidden',
    taskStart: 'call',
    ui: undefined,
    listing: described,
    plainListing: described,
    call: (args, ctx) => callChecked(name, inputValidator, args, ctx, run),
  };
}

function buildRemotePrompt(spec: RemotePrompt, target: InvocationTarget, latest: () => RemotePrompt): PromptItem {
  const { listing } = spec;
  const name = listing.name;
  const described = perRevision((revision) => {
    const entry = describeFor(revision, { name }, listing);
    if (listing.arguments?.length) {
      entry.arguments = listing.arguments.map(({ title, ...rest }) => (revision.titlesAndStructuredOutput && title !== undefined ? { ...rest, title } : { ...rest }));
    }
    return entry;
  });
  return {
    name,
    target,
    listing: described,
    get: async (params, ctx) => latest().get(stringArguments(params.arguments), ctx),
    complete: (params, ctx) => complete(latest().complete, params, ctx),
  };
}

function buildRemoteResource(spec: RemoteResource, target: InvocationTarget, latest: () => RemoteResource): ResourceItem {
  const { listing } = spec;
  const key = listing.uri;
  const described = perRevision((revision) => {
    const entry: Record<string, unknown> = { uri: key, name: listing.name };
    describeFor(revision, entry, listing);
    if (listing.mimeType !== undefined) entry.mimeType = listing.mimeType;
    if (listing.size !== undefined) entry.size = listing.size;
    if (listing.annotations) entry.annotations = listing.annotations;
    return entry;
  });
  return {
    key,
    name: listing.name,
    target,
    ui: undefined,
    listing: described,
    read: (uri, ctx) => readRemote(latest(), uri, ctx),
    complete: (params, ctx) => complete((latest() as { complete?: RemoteCompleter }).complete, params, ctx),
  };
}

function buildRemoteTemplate(spec: RemoteTemplate, target: InvocationTarget, latest: () => RemoteTemplate): TemplateItem {
  const { listing } = spec;
  const key = listing.uriTemplate;
  let template: UriTemplate;
  try {
    template = new UriTemplate(key);
  } catch (error) {
    throw new DefinitionError('INVALID_OPTION', `${WHERE}: the template "${key}": ${(error as Error).message}`);
  }
  const described = perRevision((revision) => {
    const entry: Record<string, unknown> = { uriTemplate: key, name: listing.name };
    describeFor(revision, entry, listing);
    if (listing.mimeType !== undefined) entry.mimeType = listing.mimeType;
    if (listing.annotations) entry.annotations = listing.annotations;
    return entry;
  });
  return {
    key,
    name: listing.name,
    target,
    listing: described,
    match: (uri) => template.match(uri),
    read: (uri, _variables, ctx) => readRemote(latest(), uri, ctx),
    enumerate: () => [],
    complete: (params, ctx) => complete(latest().complete, params, ctx),
  };
}

/** A read of what something else serves: its result, with a list of `contents` always there. */
async function readRemote(spec: RemoteReadable, uri: string, ctx: Context): Promise<Record<string, unknown>> {
  const read = await spec.read(uri, ctx);
  const contents = (read.contents as unknown[] | undefined) ?? [];
  if (!Array.isArray(contents)) throw new TypeError(`${WHERE}: the read of ${uri} answered contents that are not a list`);
  return { ...read, contents };
}

async function complete(completer: RemoteCompleter | undefined, params: Record<string, unknown>, ctx: Context): Promise<Record<string, unknown>> {
  if (!completer) return noCompletion();
  const argument = params.argument as { name: string; value: string };
  const answer = await completer(argument, params.context as { arguments?: Record<string, string> } | undefined, ctx);
  const values = (answer?.values ?? []).map(String);
  const shown = values.slice(0, MAX_COMPLETION_VALUES);
  const completion: Record<string, unknown> = { values: shown };
  if (answer.total !== undefined) completion.total = answer.total;
  if (answer.hasMore !== undefined || values.length > shown.length) completion.hasMore = answer.hasMore ?? true;
  return { completion };
}

function stringArguments(value: unknown): Record<string, string> {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new InvalidParamsError('prompts/get: "arguments" must be an object of strings');
  return value as Record<string, string>;
}
