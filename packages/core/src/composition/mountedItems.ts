import { perRevision } from '../items/describe';
import type { ToolHeaderParam } from '../items/headerParams';
import type { PromptItem } from '../items/PromptItem';
import { resourceNotFound } from '../items/ResourceItem';
import type { ResourceItem, TemplateItem } from '../items/ResourceItem';
import type { CallToolResult, ToolItem } from '../items/ToolItem';
import type { AppResourceUi, ResourceListing, TaskStart, TaskSupport, ToolAnnotations, ToolUi } from '../metadata';
import type { Revision } from '../protocol';
import type { Context } from '../runtime/Context';
import type { InvocationTarget } from '../runtime/middleware';
import type { JsonSchema } from '../schema';
import { skillUris } from '../skills';
import type { RegisteredSkill, SkillFiles } from '../skills';
import { UriTemplate } from '../uri';
import { mountedUri, unmountedUri } from './names';

/**
 * How an item a server shows for a server mounted in it reaches that server: a request for it
 * is served there, by that server's middleware, access rules and handler.
 */
export interface MountLink {
  readonly namespace: string;
  /** Serves `method` in the mounted server, with params in its names; refused once unmounted. */
  forward(childKey: string, method: string, params: Record<string, unknown>, ctx: Context): Promise<Record<string, unknown>>;
  /** Runs the mounted server's tool as a `tools/call` there; refused once unmounted. */
  callTool(childKey: string, args: unknown, ctx: Context): CallToolResult | Promise<CallToolResult>;
  /** The request as the mounted server serves it: its container, the same params. */
  inChild(ctx: Context): Context;
}

/** A listing per revision, made once: the mounted item's own with the parent's name or uri. */
function renamedListing(listing: (revision: Revision) => Record<string, unknown>, rename: Record<string, unknown>): (revision: Revision) => Record<string, unknown> {
  return perRevision((revision) => ({ ...listing(revision), ...rename }));
}

/** A mounted server's tool, under the parent's name. */
export class MountedTool implements ToolItem {
  readonly target: InvocationTarget;
  readonly inputSchema: JsonSchema;
  readonly annotations: ToolAnnotations | undefined;
  readonly headerParams: readonly ToolHeaderParam[];
  readonly taskSupport: TaskSupport;
  readonly taskStart: TaskStart;
  readonly ui: ToolUi | undefined;
  readonly listing: (revision: Revision) => Record<string, unknown>;
  readonly plainListing: (revision: Revision) => Record<string, unknown>;

  constructor(
    source: ToolItem,
    readonly name: string,
    private readonly childKey: string,
    private readonly link: MountLink,
  ) {
    // As the source is now: the mount shows it anew when its access target changes.
    this.target = source.target;
    this.inputSchema = source.inputSchema;
    this.annotations = source.annotations;
    this.headerParams = source.headerParams;
    this.taskSupport = source.taskSupport;
    this.taskStart = source.taskStart;
    this.ui = source.ui;
    this.listing = renamedListing((revision) => source.listing(revision), { name });
    this.plainListing = renamedListing((revision) => source.plainListing(revision), { name });
  }

  call(args: unknown, ctx: Context): CallToolResult | Promise<CallToolResult> {
    return this.link.callTool(this.childKey, args, ctx);
  }
}

/** A mounted server's prompt, under the parent's name. */
export class MountedPrompt implements PromptItem {
  readonly target: InvocationTarget;
  readonly listing: (revision: Revision) => Record<string, unknown>;

  constructor(
    source: PromptItem,
    readonly name: string,
    private readonly childKey: string,
    private readonly link: MountLink,
  ) {
    this.target = source.target;
    this.listing = renamedListing((revision) => source.listing(revision), { name });
  }

  get(params: Record<string, unknown>, ctx: Context): Promise<Record<string, unknown>> {
    return this.link.forward(this.childKey, 'prompts/get', { ...params, name: this.childKey }, ctx);
  }

  complete(params: Record<string, unknown>, ctx: Context): Promise<Record<string, unknown>> {
    return this.link.forward(this.childKey, 'completion/complete', { ...params, ref: { ...(params.ref as object), name: this.childKey } }, ctx);
  }
}

/** A mounted server's resource, under the parent's uri. */
export class MountedResource implements ResourceItem {
  readonly name: string;
  readonly target: InvocationTarget;
  readonly ui: AppResourceUi | undefined;
  readonly listing: (revision: Revision) => Record<string, unknown>;

  constructor(
    source: ResourceItem,
    readonly key: string,
    private readonly childKey: string,
    private readonly link: MountLink,
  ) {
    this.name = source.name;
    this.target = source.target;
    this.ui = source.ui;
    this.listing = renamedListing((revision) => source.listing(revision), { uri: key });
  }

  read(uri: string, ctx: Context): Promise<Record<string, unknown>> {
    return readMounted(this.link, this.childKey, uri, ctx);
  }

  complete(params: Record<string, unknown>, ctx: Context): Promise<Record<string, unknown>> {
    return completeMounted(this.link, this.childKey, params, ctx);
  }
}

/** A mounted server's resource template, under the parent's uri template. */
export class MountedTemplate implements TemplateItem {
  readonly name: string;
  readonly target: InvocationTarget;
  readonly listing: (revision: Revision) => Record<string, unknown>;
  private readonly template: UriTemplate;

  constructor(
    private readonly source: TemplateItem,
    readonly key: string,
    private readonly childKey: string,
    private readonly link: MountLink,
  ) {
    this.name = source.name;
    this.target = source.target;
    this.template = new UriTemplate(key);
    this.listing = renamedListing((revision) => source.listing(revision), { uriTemplate: key });
  }

  match(uri: string): Record<string, unknown> | undefined {
    return this.template.match(uri);
  }

  read(uri: string, _variables: Record<string, unknown>, ctx: Context): Promise<Record<string, unknown>> {
    return readMounted(this.link, this.childKey, uri, ctx);
  }

  /** What the mounted server's template lists, in the parent's uris. */
  async enumerate(ctx: Context): Promise<readonly ResourceListing[]> {
    const listed = await this.source.enumerate(this.link.inChild(ctx));
    return listed.map((item) => ({ ...item, uri: mountedUri(this.link.namespace, item.uri) }));
  }

  complete(params: Record<string, unknown>, ctx: Context): Promise<Record<string, unknown>> {
    return completeMounted(this.link, this.childKey, params, ctx);
  }
}

/** The mounted server reads its own uri; contents of that uri name the parent's. */
async function readMounted(link: MountLink, childKey: string, uri: string, ctx: Context): Promise<Record<string, unknown>> {
  const childUri = unmountedUri(link.namespace, uri);
  if (childUri === undefined) throw resourceNotFound(uri);
  const read = await link.forward(childKey, 'resources/read', { ...ctx.requestParams, uri: childUri }, ctx);
  const contents = (read.contents as Array<Record<string, unknown>> | undefined) ?? [];
  return { ...read, contents: contents.map((item) => (item.uri === childUri ? { ...item, uri } : item)) };
}

function completeMounted(link: MountLink, childKey: string, params: Record<string, unknown>, ctx: Context): Promise<Record<string, unknown>> {
  return link.forward(childKey, 'completion/complete', { ...params, ref: { ...(params.ref as object), uri: childKey } }, ctx);
}

/** A mounted server's skill, under the parent's path (the namespace its first segment). */
export class MountedSkill implements RegisteredSkill {
  readonly uri: string;
  readonly root: string;
  readonly frontmatter: Readonly<Record<string, unknown>>;
  readonly dynamic: boolean;
  readonly target: InvocationTarget;
  readonly origin: string;

  constructor(
    private readonly source: RegisteredSkill,
    readonly path: string,
    private readonly link: MountLink,
  ) {
    ({ uri: this.uri, root: this.root } = skillUris(path));
    this.frontmatter = source.frontmatter;
    this.dynamic = source.dynamic;
    this.target = source.target;
    this.origin = source.origin;
  }

  /** A `@Skill` method of the mounted server runs there (its container, its middleware). */
  files(ctx: Context): Promise<SkillFiles> {
    return this.source.files(this.link.inChild(ctx));
  }
}
