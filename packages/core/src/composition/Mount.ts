import type { DependencyContainer } from 'tsyringe';
import { DefinitionError, InvalidParamsError } from '../errors';
import type { Catalog } from '../items/Catalog';
import type { PromptItem } from '../items/PromptItem';
import type { ResourceItem, TemplateItem } from '../items/ResourceItem';
import type { CallToolResult, ToolItem } from '../items/ToolItem';
import type { ChangeBroadcaster } from '../runtime/ChangeBroadcaster';
import type { Context } from '../runtime/Context';
import type { Dispatcher } from '../runtime/Dispatcher';
import type { InvocationTarget } from '../runtime/middleware';
import type { Registry } from '../runtime/Registry';
import type { RegisteredSkill, SkillCatalog } from '../skills';
import { MountedPrompt, MountedResource, MountedSkill, MountedTemplate, MountedTool } from './mountedItems';
import type { MountLink } from './mountedItems';
import { checkNamespace, mountedName, mountedUri } from './names';
import type { MountedNames } from './names';

/** What a mount needs of a server, as the parent and as the mounted one. */
export interface Mountable extends Catalog {
  readonly skills: SkillCatalog;
  readonly dispatcher: Dispatcher;
  readonly container: DependencyContainer;
  readonly changes: ChangeBroadcaster;
  /** The servers mounted in this one. */
  readonly mounts: Set<Mount>;
  /** Where this server is mounted. */
  readonly mountedIn: Set<Mount>;
  reportError(what: string, error: unknown): void;
  /** Whether `name` is reserved here (tool search's two tools): no mounted tool may take it. */
  reservesTool(name: string): boolean;
  readonly debug: boolean;
  notifyUpdated(uri: string): void;
  hasCompletions(): boolean;
  /** Capabilities may have changed (a mount brings completions). */
  capabilitiesChanged(): void;
}

/** Options of `server.mount`. */
export interface MountOptions {
  /** Put before every name (`<namespace>_<tool>`) and in every uri of the mounted server; 1-64 of A-Z, a-z, 0-9, "_", "-". */
  namespace: string;
  /**
   * How tool and prompt names are checked: `mcp` (default) allows what MCP allows, 1-128 of
   * A-Z, a-z, 0-9, "_", "-", "."; `strict` refuses names some model APIs refuse (more than 64
   * characters, or a "."); `shorten` rewrites them to fit (see the composition guide).
   */
  names?: MountedNames;
  /**
   * A name the parent already has: `error` (default) fails the mount with `DUPLICATE_NAME`;
   * `skip` leaves the parent's item and does not show the mounted one.
   */
  onCollision?: 'error' | 'skip';
}

type Kind = 'tool' | 'prompt' | 'resource' | 'template' | 'skill';

interface KindOps<T> {
  registry(server: Mountable): Registry<T>;
  /** The item's key (name, uri or template) in its server. */
  keyOf(item: T): string;
  /** The item as the parent shows it under `key`, served by the mounted server. */
  shown(item: T, key: string, childKey: string, link: MountLink): T;
}

/** A server mounted in another: its items shown there under a namespace, as they change. */
export class Mount implements MountLink {
  readonly namespace: string;
  private readonly names: MountedNames;
  private readonly onCollision: 'error' | 'skip';
  /**
   * Per kind: the mounted server's key → what the parent shows (`item`), made from `source`,
   * the state last mirrored, and whether the mount disabled it (the parent's own disable stays).
   */
  private readonly shown = new Map<Kind, Map<string, { parentKey: string; source: unknown; target: unknown; item: unknown; enabled: boolean; disabledByMount: boolean }>>();
  private readonly stops: Array<() => void> = [];
  private mounted = false;

  constructor(
    readonly parent: Mountable,
    readonly child: Mountable,
    options: MountOptions,
  ) {
    checkNamespace(options?.namespace);
    this.namespace = options.namespace;
    this.names = options.names ?? 'mcp';
    if (!['mcp', 'strict', 'shorten'].includes(this.names)) throw new DefinitionError('INVALID_OPTION', `server.mount: names must be 'mcp', 'strict' or 'shorten', not ${JSON.stringify(options.names)}`);
    this.onCollision = options.onCollision ?? 'error';
    if (this.onCollision !== 'error' && this.onCollision !== 'skip') {
      throw new DefinitionError('INVALID_OPTION', `server.mount: onCollision must be 'error' or 'skip', not ${JSON.stringify(options.onCollision)}`);
    }
    if (child === parent || reaches(child, parent)) {
      throw new DefinitionError('INVALID_OPTION', `server.mount: mounting "${this.namespace}" would make a cycle: the server is mounted in what it mounts`);
    }
  }

  /** Shows every item of the mounted server in the parent: all, or none and an error. */
  attach(): void {
    // Checked before anything is added, so a mount that fails leaves the parent as it was.
    for (const kind of KINDS) {
      const ops = OPS[kind] as KindOps<unknown>;
      const taken = new Set<string>();
      for (const { item } of ops.registry(this.child).all()) {
        const parentKey = this.parentKeyOf(kind, ops.keyOf(item));
        const reserved = kind === 'tool' && this.parent.reservesTool(parentKey);
        if ((ops.registry(this.parent).has(parentKey) || taken.has(parentKey) || reserved) && this.onCollision === 'error') throw duplicate(kind, parentKey, this.namespace);
        taken.add(parentKey);
        // Where the parent is mounted, the name must be free too.
        for (const outer of this.parent.mountedIn) outer.checkFree(kind, parentKey, `server.mount("${this.namespace}")`);
      }
    }
    this.mounted = true;
    this.parent.mounts.add(this);
    this.child.mountedIn.add(this);
    for (const kind of KINDS) {
      this.sync(kind);
      this.stops.push(OPS[kind].registry(this.child).onChange(() => this.sync(kind)));
    }
    // Updates of the mounted server's resources reach the parent's subscribers under its uris.
    this.stops.push(
      this.child.changes.listen({
        filter: {},
        wantsResource: () => true,
        deliver: (method, params) => {
          if (method === 'notifications/resources/updated' && typeof params.uri === 'string') this.parent.notifyUpdated(mountedUri(this.namespace, params.uri));
        },
        end: () => undefined,
        persistent: true,
      }),
    );
    this.parent.capabilitiesChanged();
  }

  /** Takes the mounted server's items out of the parent; clients hear list_changed. */
  detach(): void {
    if (!this.mounted) return;
    this.mounted = false;
    for (const stop of this.stops.splice(0)) stop();
    for (const kind of KINDS) {
      const registry = OPS[kind].registry(this.parent) as Registry<unknown>;
      const shown = [...(this.shown.get(kind)?.values() ?? [])];
      if (kind === 'tool') this.dropTransforms(shown);
      for (const { parentKey, item } of shown) registry.removeIfHolds(parentKey, item);
      this.shown.delete(kind);
    }
    this.parent.mounts.delete(this);
    this.child.mountedIn.delete(this);
    this.parent.capabilitiesChanged();
  }

  /**
   * Tools made from the mounted ones (server.transformTool), and tools made from those, go with
   * them, and so do their covers: a later mount shows its tools as they are.
   */
  private dropTransforms(shown: ReadonlyArray<{ parentKey: string; item: unknown }>): void {
    const tools = this.parent.tools;
    const mine = new Set(shown.filter((entry) => tools.itemNamed(entry.parentKey) === entry.item).map((entry) => entry.parentKey));
    const gone = new Set(mine);
    for (let grew = true; grew; ) {
      grew = false;
      // A renamed transform follows the name it was made from; one under its own name is that name's cover.
      for (const { name, follows } of tools.registered()) {
        if (!gone.has(name) && follows !== undefined && gone.has(follows)) {
          gone.add(name);
          grew = true;
        }
      }
    }
    for (const name of gone) {
      tools.uncover(name);
      if (!mine.has(name)) tools.remove(name);
    }
  }

  /**
   * Refuses a name the mounted server is about to register when the parent (or a server the
   * parent is mounted in) has it already: the registration fails and changes nothing.
   */
  checkFree(kind: Kind, childKey: string, where: string): void {
    const parentKey = this.parentKeyOf(kind, childKey);
    // A key this mount shows itself (the mounted server replaced the item in this tick) is free for it.
    const shown = this.shown.get(kind)?.get(childKey);
    const own = shown?.parentKey === parentKey && (OPS[kind].registry(this.parent) as Registry<unknown>).itemNamed(parentKey) === shown.item;
    if (this.onCollision === 'skip' || own) return;
    const reserved = kind === 'tool' && this.parent.reservesTool(parentKey);
    if (OPS[kind].registry(this.parent).has(parentKey) || reserved) {
      throw new DefinitionError('DUPLICATE_NAME', `${where}: a ${kind} named "${childKey}" would be "${parentKey}" where this server is mounted ("${this.namespace}"), which has one already`);
    }
    for (const outer of this.parent.mountedIn) outer.checkFree(kind, parentKey, where);
  }

  private parentKeyOf(kind: Kind, childKey: string): string {
    if (kind === 'tool' || kind === 'prompt') return mountedName(this.namespace, childKey, this.names, kind);
    // A skill's path takes the namespace as its first segment: skill://<namespace>/<path>/SKILL.md.
    if (kind === 'skill') return `${this.namespace}/${childKey}`;
    const uri = mountedUri(this.namespace, childKey);
    if (uri === childKey && !/^ui:/i.test(childKey)) {
      throw new DefinitionError('INVALID_OPTION', `server.mount("${this.namespace}"): the ${kind} "${childKey}" has no literal scheme to put the namespace after; give it one (e.g. "docs://{path}")`);
    }
    return uri;
  }

  /** Mirrors the mounted server's items of one kind into the parent: added, removed, enabled, disabled. */
  private sync(kind: Kind): void {
    if (!this.mounted) return;
    const ops = OPS[kind] as KindOps<unknown>;
    const target = ops.registry(this.parent);
    let shown = this.shown.get(kind);
    if (!shown) this.shown.set(kind, (shown = new Map()));
    const current = new Map(ops.registry(this.child).all().map((entry) => [ops.keyOf(entry.item), entry]));
    const stillOurs = (entry: { parentKey: string; item: unknown }) => target.itemNamed(entry.parentKey) === entry.item;
    for (const [childKey, entry] of shown) {
      // The same item with another access target (a transform whose source was replaced) is shown anew.
      const now = current.get(childKey)?.item;
      if (now === entry.source && targetOf(now) === entry.target) continue;
      (target as Registry<unknown>).removeIfHolds(entry.parentKey, entry.item);
      shown.delete(childKey);
    }
    for (const [childKey, { item, enabled }] of current) {
      const known = shown.get(childKey);
      if (known) {
        // Mirrors the mounted server's changes of state; the parent's own disable (or a
        // transformTool that hid the item) stays: only what the mount disabled is enabled again.
        if (known.enabled !== enabled && stillOurs(known)) {
          if (!enabled && target.isEnabled(known.parentKey)) {
            target.disable(known.parentKey);
            known.disabledByMount = true;
          } else if (enabled && known.disabledByMount) {
            target.enable(known.parentKey);
            known.disabledByMount = false;
          }
        }
        known.enabled = enabled;
        continue;
      }
      let parentKey: string;
      try {
        parentKey = this.parentKeyOf(kind, childKey);
      } catch (error) {
        this.parent.reportError(`server.mount("${this.namespace}"): a ${kind} of the mounted server is not shown`, error);
        continue;
      }
      if (target.has(parentKey) || (kind === 'tool' && this.parent.reservesTool(parentKey))) continue; // taken: the parent's own stays
      // The parent lists per caller by the mounted item's own access rules.
      this.parent.access.adopt((item as { target: InvocationTarget }).target, this.child.access);
      const made = ops.shown(item, parentKey, childKey, this);
      target.add(parentKey, made, `server.mount("${this.namespace}")`);
      if (!enabled) target.disable(parentKey);
      shown.set(childKey, { parentKey, source: item, target: targetOf(item), item: made, enabled, disabledByMount: !enabled });
    }
  }

  private checkMounted(childKey: string): void {
    if (!this.mounted) throw new InvalidParamsError(`Unknown tool, prompt or resource: ${childKey} (the server "${this.namespace}" was unmounted)`);
  }

  // MountLink: how the items shown in the parent reach the mounted server.

  async forward(childKey: string, method: string, params: Record<string, unknown>, ctx: Context): Promise<Record<string, unknown>> {
    this.checkMounted(childKey);
    const route = this.child.dispatcher.routeOf(method);
    if (!route) throw new Error(`the mounted server "${this.namespace}" does not serve ${method}`);
    return this.child.dispatcher.dispatch(route.handler, method, params, ctx.within(this.child.container, params));
  }

  /**
   * Runs the tool in the mounted server as a call of it there: that server's middleware (as
   * `tools/call`), access rules, validation and method; answers with the tool's result.
   */
  callTool(childKey: string, args: unknown, ctx: Context): CallToolResult | Promise<CallToolResult> {
    this.checkMounted(childKey);
    const { child } = this;
    const tool = child.tools.get(childKey);
    if (!tool) throw new InvalidParamsError(`Unknown tool: ${childKey} (no longer served by the mounted server "${this.namespace}")`);
    const params: Record<string, unknown> = args === undefined ? { name: childKey } : { name: childKey, arguments: args };
    // The request's _meta (progress token, trace context) reaches the mounted server's middleware too.
    const meta = ctx.requestParams._meta;
    if (meta !== undefined) params._meta = meta;
    // Synchronous unless something on the way is not: most calls are not.
    const run = (_params: Record<string, unknown>, runCtx: Context): CallToolResult | Promise<CallToolResult> => {
      const allowed = child.access.check(tool.target, runCtx);
      return allowed instanceof Promise ? allowed.then(() => tool.call(args, runCtx)) : tool.call(args, runCtx);
    };
    return child.dispatcher.dispatch(run, 'tools/call', params, ctx.within(child.container, params)) as CallToolResult | Promise<CallToolResult>;
  }

  inChild(ctx: Context): Context {
    return ctx.within(this.child.container, ctx.requestParams);
  }
}

const KINDS: readonly Kind[] = ['tool', 'prompt', 'resource', 'template', 'skill'];

const OPS: { [K in Kind]: KindOps<K extends 'tool' ? ToolItem : K extends 'prompt' ? PromptItem : K extends 'skill' ? RegisteredSkill : K extends 'template' ? TemplateItem : ResourceItem> } = {
  skill: {
    registry: (server) => server.skills.registry,
    keyOf: (skill) => skill.path,
    shown: (skill, path, _childKey, link) => new MountedSkill(skill, path, link),
  },
  tool: {
    registry: (server) => server.tools,
    keyOf: (tool) => tool.name,
    shown: (tool, name, childKey, link) => new MountedTool(tool, name, childKey, link),
  },
  prompt: {
    registry: (server) => server.prompts,
    keyOf: (prompt) => prompt.name,
    shown: (prompt, name, childKey, link) => new MountedPrompt(prompt, name, childKey, link),
  },
  resource: {
    registry: (server) => server.resources,
    keyOf: (resource) => resource.key,
    shown: (resource, uri, childKey, link) => new MountedResource(resource, uri, childKey, link),
  },
  template: {
    registry: (server) => server.templates,
    keyOf: (template) => template.key,
    shown: (template, uriTemplate, childKey, link) => new MountedTemplate(template, uriTemplate, childKey, link),
  },
};

function targetOf(item: unknown): unknown {
  return (item as { target?: unknown } | undefined)?.target;
}

function reaches(from: Mountable, to: Mountable): boolean {
  for (const mount of from.mounts) if (mount.child === to || reaches(mount.child, to)) return true;
  return false;
}

function duplicate(kind: Kind, key: string, namespace: string): DefinitionError {
  return new DefinitionError(
    'DUPLICATE_NAME',
    `server.mount("${namespace}"): the server already has a ${kind} named "${key}"; choose another namespace, or onCollision: 'skip' to keep the server's own`,
  );
}
