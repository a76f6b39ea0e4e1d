import type { DependencyContainer } from 'tsyringe';
import { AccessPolicy } from '../access';
import { Mount, RemoteItemSet } from '../composition';
import type { Mountable, MountOptions, RemoteCatalog, RemoteHost, RemoteItems } from '../composition';
import { DefinitionError } from '../errors';
import { findResource } from '../features/resources';
import type { FeatureCatalog } from '../features/rooms';
import type { Completer, ItemHost } from '../items/ItemHost';
import type { PromptItem } from '../items/PromptItem';
import type { ResourceItem, TemplateItem } from '../items/ResourceItem';
import type { ToolItem } from '../items/ToolItem';
import type { Constructor } from '../metadata';
import { ChangeBroadcaster } from '../runtime/ChangeBroadcaster';
import type { Dispatcher } from '../runtime/Dispatcher';
import type { ServedItem } from '../runtime/plugins';
import { Paginator } from '../runtime/Paginator';
import { Registry } from '../runtime/Registry';
import { SkillCatalog } from '../skills';
import type { RegisteredSkill } from '../skills';
import type { ClusterChange } from './ClusterLink';
import { registerProvider } from './registerProvider';

/** Tool names something other than a tool holds (tool search's two): no tool may take them. */
export interface ToolNameReservation {
  /** Who holds them, as refusals say it ("tool search"). */
  readonly holder: string;
  /** The server option that names them ("toolSearch"). */
  readonly option: string;
  owns(name: string): boolean;
}

/** What the catalog is given by the server it is part of. */
export interface CatalogWiring {
  readonly pageSize: number | false | undefined;
  /** Serve the items a parent shows of this server when it is mounted. */
  readonly dispatcher: Dispatcher;
  readonly container: DependencyContainer;
  readonly debug: boolean;
  reportError(what: string, error: unknown): void;
  /** Tells the other replicas of a change; the key that names it on every replica. */
  publish(change: ClusterChange): string | undefined;
  /** What the server declares may have changed (cached per revision until then). */
  declarationsChanged(): void;
  /** A resource update was announced, here or by another replica. */
  resourceUpdated(uri: string): void;
}

/**
 * The catalog of one server: the registries of its tools, prompts, resources, templates and
 * skills with their pages, the access rules and completions, the broadcasting of their changes,
 * the servers mounted in it and where it is mounted, the items served elsewhere, and which names
 * are free. What the features list and serve, and what a mount mirrors (Mountable) or a remote
 * catalog fills (RemoteHost).
 */
export class ServerCatalog implements FeatureCatalog, Mountable, RemoteHost {
  readonly tools = new Registry<ToolItem>('tool');
  readonly resources = new Registry<ResourceItem>('resource');
  readonly templates = new Registry<TemplateItem>('resource template');
  readonly prompts = new Registry<PromptItem>('prompt');
  readonly skills = new SkillCatalog();
  readonly completions = new Map<string, Completer>();
  readonly access = new AccessPolicy();
  readonly changes = new ChangeBroadcaster((uri) => this.wiring.resourceUpdated(uri));
  readonly toolPages: Paginator<ToolItem>;
  readonly resourcePages: Paginator<ResourceItem>;
  readonly templatePages: Paginator<TemplateItem>;
  readonly promptPages: Paginator<PromptItem>;
  readonly skillPages: Paginator<RegisteredSkill>;
  readonly mounts = new Set<Mount>();
  readonly mountedIn = new Set<Mount>();
  readonly dispatcher: Dispatcher;
  readonly container: DependencyContainer;
  readonly debug: boolean;
  /** Items served elsewhere (`server.remote`). */
  private readonly remoteCatalogs = new Set<RemoteItemSet>();
  private reserved: ToolNameReservation | undefined;
  private readonly pendingListChanges = new Set<string>();
  private appToolsAt = { revision: -1, any: false };

  constructor(private readonly wiring: CatalogWiring) {
    const { pageSize } = wiring;
    this.dispatcher = wiring.dispatcher;
    this.container = wiring.container;
    this.debug = wiring.debug;
    this.toolPages = new Paginator('tools', this.tools, pageSize);
    this.resourcePages = new Paginator('resources', this.resources, pageSize);
    this.templatePages = new Paginator('templates', this.templates, pageSize);
    this.promptPages = new Paginator('prompts', this.prompts, pageSize);
    this.skillPages = new Paginator('skills', this.skills.registry, pageSize);
  }

  /** From now on, changes to the lists are told (the providers a server is made with are no change). */
  broadcastChanges(): void {
    this.onListChange(this.tools, 'notifications/tools/list_changed');
    this.onListChange(this.prompts, 'notifications/prompts/list_changed');
    this.onListChange(this.resources, 'notifications/resources/list_changed');
    this.onListChange(this.templates, 'notifications/resources/list_changed');
    // Each skill's SKILL.md is in resources/list.
    this.onListChange(this.skills.registry, 'notifications/resources/list_changed');
  }

  reportError(what: string, error: unknown): void {
    this.wiring.reportError(what, error);
  }

  /** Holds tool names for something other than a tool (tool search); set before any provider comes in. */
  reserveTools(reservation: ToolNameReservation): void {
    this.reserved = reservation;
  }

  reservesTool(name: string): boolean {
    return this.reserved?.owns(name) ?? false;
  }

  /** Adds a provider class: all of it, checked first against the names taken here and where this server is mounted, or nothing. */
  register(provider: Constructor, items: ItemHost, resolve: (provider: Constructor) => void): void {
    const added = registerProvider(this, items, provider);
    for (const { kind, key, at } of added.keys) {
      if (kind === 'tool' && this.reservesTool(key)) throw new DefinitionError('DUPLICATE_NAME', `${at}: the tool name "${key}" is ${this.reserved!.holder}'s; rename the tool or set ${this.reserved!.option}'s tool names`);
    }
    for (const mount of this.mountedIn) for (const { kind, key, at } of added.keys) mount.checkFree(kind, key, at);
    resolve(provider);
    added.commit();
    if (added.completions > 0) this.capabilitiesChanged();
  }

  /** Whether some tool has a UI (MCP Apps); kept until the tools change. */
  get appTools(): boolean {
    if (this.appToolsAt.revision !== this.tools.revision) this.appToolsAt = { revision: this.tools.revision, any: this.tools.list().some((tool) => tool.ui !== undefined) };
    return this.appToolsAt.any;
  }

  /** Shows `child`'s items here under a namespace, as they change (see McpServer.mount). */
  mount(child: ServerCatalog, options: MountOptions): Mount {
    const mount = new Mount(this, child, options);
    mount.attach();
    return mount;
  }

  /** Adds items something else answers for (see McpServer.remote). */
  remote(items: RemoteItems): RemoteCatalog {
    const catalog = new RemoteItemSet(this);
    catalog.fill(items);
    this.remoteCatalogs.add(catalog);
    const remove = catalog.remove.bind(catalog);
    catalog.remove = () => {
      this.remoteCatalogs.delete(catalog);
      remove();
    };
    if (catalog.completes) this.capabilitiesChanged();
    return catalog;
  }

  /** Throws when a prompt, resource or template may not be keyed `key` here: a clash where this server is mounted. */
  checkFree(kind: 'prompt' | 'resource' | 'template', key: string, where: string): void {
    for (const mount of this.mountedIn) mount.checkFree(kind, key, where);
  }

  /** Throws when a tool may not be named `name` here: a reserved name (tool search's), a clash where this server is mounted. */
  checkToolName(name: string, where: string): void {
    if (this.reservesTool(name)) throw new DefinitionError('DUPLICATE_NAME', `${where}: the tool name "${name}" is ${this.reserved!.holder}'s`);
    for (const mount of this.mountedIn) mount.checkFree('tool', name, where);
  }

  /** Whether completions are served here or by a mounted server. */
  hasCompletions(): boolean {
    if (this.completions.size > 0) return true;
    for (const catalog of this.remoteCatalogs) if (catalog.completes) return true;
    for (const mount of this.mounts) if (mount.child.hasCompletions()) return true;
    return false;
  }

  /** What this server declares may have changed; so may what the servers it is mounted in declare. */
  capabilitiesChanged(): void {
    this.wiring.declarationsChanged();
    for (const mount of this.mountedIn) mount.parent.capabilitiesChanged();
  }

  /** Sends `notifications/resources/updated` to every subscriber of `uri`, here and on every replica. */
  notifyUpdated(uri: string): void {
    this.changes.resourceUpdated(uri, this.wiring.publish({ kind: 'resource', uri }));
  }

  /** The scopes the registered tools, resources and prompts need now, each once, tools first. */
  declaredScopes(): string[] {
    const scopes = new Set<string>();
    const registries: ReadonlyArray<Registry<ToolItem | ResourceItem | TemplateItem | PromptItem>> = [this.tools, this.resources, this.templates, this.prompts];
    for (const registry of registries) for (const { item } of registry.all()) for (const scope of this.access.scopesOf(item.target)) scopes.add(scope);
    return [...scopes];
  }

  /** The item a request names (see PluginHost.itemOf). */
  itemOf(method: string, params: Readonly<Record<string, unknown>>): ServedItem | undefined {
    const { name, uri } = params;
    if (method === 'tools/call' && typeof name === 'string') {
      const tool = this.tools.get(name);
      return tool && { kind: 'tool', name, target: tool.target, inputSchema: tool.inputSchema };
    }
    if (method === 'prompts/get' && typeof name === 'string') {
      const prompt = this.prompts.get(name);
      return prompt && { kind: 'prompt', name, target: prompt.target };
    }
    if (method === 'resources/read' && typeof uri === 'string') {
      const found = findResource(this, uri);
      return found && { kind: 'resource', name: uri, target: found.target };
    }
    return undefined;
  }

  private onListChange(registry: Registry<unknown>, notification: string): void {
    registry.onChange(() => {
      this.wiring.declarationsChanged();
      // Fixed resources and templates share one notification: send it once per tick.
      if (this.pendingListChanges.size === 0) queueMicrotask(() => this.flushListChanges());
      this.pendingListChanges.add(notification);
    });
  }

  private flushListChanges(): void {
    const notifications = [...this.pendingListChanges];
    this.pendingListChanges.clear();
    for (const method of notifications) this.changes.listChanged(method, this.wiring.publish({ kind: 'list', method }));
  }
}
