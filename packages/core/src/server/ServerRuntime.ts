import 'reflect-metadata';
import { container as rootContainer } from 'tsyringe';
import type { DependencyContainer } from 'tsyringe';
import { AccessPolicy, AuthenticationService } from '../access';
import type { Authentication } from '../access';
import type { ClusterOptions, SessionRecord } from '../cluster';
import { ProviderResolver } from '../di';
import { modernSettings, restoreScope } from '../eras';
import type { EraCodec, ModernSettings, SavedScope, ServerDescription } from '../eras';
import { DefinitionError } from '../errors';
import { checkAppLinks } from '../features/apps';
import { corePlugins } from '../features/corePlugins';
import type { FeatureHost } from '../features/FeatureHost';
import type { Constructor } from '../metadata';
import type { HttpStage, Revision } from '../protocol';
import type { JsonRpcRequest, JsonRpcResponse, MessageInfo, Principal, Transport } from '../protocol';
import { LOGGING_LEVELS } from '../session';
import type { LoggingLevel, RequestScope, Session } from '../session';
import { TaskRunner } from '../tasks';
import { ChangeBroadcaster } from '../runtime/ChangeBroadcaster';
import { Connection } from '../runtime/Connection';
import type { ConnectionHost } from '../runtime/Connection';
import { Context } from '../runtime/Context';
import type { ClientFeatures } from '../runtime/Context';
import { Dispatcher } from '../runtime/Dispatcher';
import { Invoker } from '../runtime/Invoker';
import { Observers } from '../runtime/observers';
import { createLogger, isLoggingLevel } from '../runtime/Logger';
import type { Logger } from '../runtime/Logger';
import type { InvocationTarget } from '../runtime/middleware';
import { Paginator } from '../runtime/Paginator';
import { PluginRegistry } from '../runtime/plugins';
import type { CoreCapabilityValue, Plugin, PluginAdditions, PluginTarget, ServiceKey } from '../runtime/plugins';
import type { Completer } from '../items/ItemHost';
import type { PromptItem } from '../items/PromptItem';
import type { ResourceItem, TemplateItem } from '../items/ResourceItem';
import type { ToolItem } from '../items/ToolItem';
import { SkillCatalog } from '../skills';
import type { RegisteredSkill, SkillFolderOptions } from '../skills';
import { Registry } from '../runtime/Registry';
import { ClientFeatureServices, ClusterService } from '../runtime/services';
import { laterTurn, writeStderr } from '../platform';
import { assertPrecompiled } from '../validation';
import { createFetchHandler, httpStageRefusal } from '../transports';
import type { AloneExchange, FetchHandler, FetchHandlerOptions, HttpHandlerOptions, HttpServerHost, NodeHttpHandler, Readiness } from '../transports';
import { serveAlone } from '../runtime/serveAlone';
import { ClusterLink } from './ClusterLink';
import type { ClusterChange } from './ClusterLink';
import type { McpServerOptions } from './options';
import { registerProvider } from './registerProvider';
import { ToolSearch } from '../features/toolSearch';
import { Mount, RemoteItemSet } from '../composition';
import type { Mountable, MountOptions, RemoteCatalog, RemoteItems } from '../composition';
import { serveSkillFolder } from './skillFolders';
import type { SkillFolderReader } from './skillFolders';

/** Something that takes requests from outside and must stop before the connections close (an HTTP listener). */
export interface Listener {
  /** Stops taking new connections; resolves once the last one closed. */
  stop(): Promise<void>;
  /** Drops the connections still open once in-flight requests had their grace period. */
  drop(): void;
}

/**
 * The runtime behind an McpServer: the registries of what the server offers, the dispatcher
 * with its middleware, the invoker of author code, the plugins and the services they provide,
 * and the connections being served. It is the host every part below it is written against:
 * features (FeatureHost), plugins (PluginTarget), connections (ConnectionHost), the era codecs
 * (ServerDescription) and HTTP (HttpServerHost).
 */
export class ServerRuntime implements FeatureHost, PluginTarget, ConnectionHost, ServerDescription, HttpServerHost, Mountable {
  readonly tools = new Registry<ToolItem>('tool');
  readonly resources = new Registry<ResourceItem>('resource');
  readonly templates = new Registry<TemplateItem>('resource template');
  readonly prompts = new Registry<PromptItem>('prompt');
  readonly completions = new Map<string, Completer>();
  readonly toolPages: Paginator<ToolItem>;
  readonly resourcePages: Paginator<ResourceItem>;
  readonly templatePages: Paginator<TemplateItem>;
  readonly promptPages: Paginator<PromptItem>;
  readonly skills = new SkillCatalog();
  readonly skillPages: Paginator<RegisteredSkill>;
  readonly access = new AccessPolicy();
  readonly changes = new ChangeBroadcaster();
  readonly dispatcher = new Dispatcher();
  readonly mounts = new Set<Mount>();
  readonly toolSearch: ToolSearch | undefined;
  readonly mountedIn = new Set<Mount>();
  /** Items served elsewhere (`server.remote`). */
  private readonly remoteCatalogs = new Set<RemoteItemSet>();
  readonly observers = new Observers((what, error) => this.reportError(what, error));
  readonly container: DependencyContainer;
  readonly tasks: TaskRunner;
  readonly debug: boolean;
  readonly info: ServerDescription['info'];
  readonly instructions: string | undefined;
  readonly modern: ModernSettings;
  readonly defaultLogLevel: LoggingLevel;
  readonly logRateLimit: number;
  readonly requestTimeoutMs: number;
  readonly maxRequestsInFlight: number;
  readonly maxBatchSize: number;
  readonly serverInfo: { readonly name: string; readonly version: string };
  /** `ctx.sample/elicit/roots`, as the built-in client-feature plugins provide them. */
  readonly clientFeatures = {} as ClientFeatures;
  /** Server log messages outside any request, to every initialized session (each by its own level) and every replica. */
  readonly log: Logger;
  private readonly resolver: ProviderResolver;
  private readonly invoker: Invoker;
  private readonly plugins: PluginRegistry;
  private readonly connections = new Set<Connection>();
  private readonly httpHandlers = new Set<{ close(graceMs?: number): Promise<void> }>();
  /** The HTTP stages plugins added, in the order added: a new array each time, so the HTTP handlers place them again. */
  httpStages: readonly HttpStage[] = [];
  private readonly listeners = new Set<Listener>();
  /** Capabilities of the `initialize` result, in the order declared (built-in features first). */
  private readonly declared = new Map<string, CoreCapabilityValue>();
  /** `capabilities.extensions`, one entry per extension, from plugins' `extension(name, settings)`. */
  private readonly advertised = new Map<string, CoreCapabilityValue>();
  private readonly services = new Map<ServiceKey<unknown>, unknown>();
  private readonly closeHooks: Array<() => void | Promise<void>> = [];
  private readonly readinessChecks = new Map<string, () => boolean>();
  private closingStarted = false;
  private readonly closingHooks: Array<() => void> = [];
  /** Capabilities and extensions per revision, until something they depend on changes. */
  private readonly described = new Map<Revision, { capabilities: Record<string, unknown>; extensions: Record<string, unknown> }>();
  private readonly pendingListChanges = new Set<string>();
  private link: ClusterLink | undefined;
  private started = false;
  /** Whether the app links were checked: once the server serves, then for every provider added. */
  private serving = false;
  private readonly servingHooks: Array<() => void> = [];
  private appToolsAt = { revision: -1, any: false };

  /** What the era codecs put on the wire of this server (ServerDescription): the runtime itself. */
  get server(): ServerDescription {
    return this;
  }

  constructor(private readonly options: McpServerOptions) {
    const pageSize = options.pageSize;
    if (pageSize !== undefined && pageSize !== false && !(Number.isInteger(pageSize) && pageSize > 0)) {
      throw new DefinitionError('INVALID_OPTION', `McpServer: pageSize must be a positive integer or false, not ${String(pageSize)}`);
    }
    if (options.logLevel !== undefined && !isLoggingLevel(options.logLevel)) {
      throw new DefinitionError('INVALID_OPTION', `McpServer: logLevel must be one of ${LOGGING_LEVELS.join(', ')}, not ${JSON.stringify(options.logLevel)}`);
    }
    const rate = options.logRateLimit;
    if (rate !== undefined && !(typeof rate === 'number' && rate > 0 && Number.isFinite(rate))) {
      throw new DefinitionError('INVALID_OPTION', `McpServer: logRateLimit must be a positive number of messages per second, not ${String(rate)}`);
    }
    this.debug = options.debug ?? false;
    this.info = { name: options.name, version: options.version, title: options.title, description: options.description, websiteUrl: options.websiteUrl, icons: options.icons };
    this.serverInfo = { name: options.name, version: options.version };
    this.instructions = options.instructions;
    this.modern = modernSettings(options);
    this.defaultLogLevel = options.logLevel ?? 'info';
    this.logRateLimit = options.logRateLimit ?? 100;
    this.toolSearch = options.toolSearch === undefined ? undefined : new ToolSearch(options.toolSearch === true ? {} : options.toolSearch);
    this.requestTimeoutMs = options.requestTimeoutMs ?? 60_000;
    this.maxRequestsInFlight = positiveInteger(options.maxRequestsInFlight, 1000, 'maxRequestsInFlight');
    this.maxBatchSize = positiveInteger(options.maxBatchSize, 100, 'maxBatchSize');
    this.container = options.container ?? rootContainer;
    this.resolver = new ProviderResolver(this.container, Context);
    this.invoker = new Invoker(this.resolver);
    this.toolPages = new Paginator('tools', this.tools, pageSize);
    this.resourcePages = new Paginator('resources', this.resources, pageSize);
    this.templatePages = new Paginator('templates', this.templates, pageSize);
    this.promptPages = new Paginator('prompts', this.prompts, pageSize);
    this.skillPages = new Paginator('skills', this.skills.registry, pageSize);
    for (const provider of options.providers ?? []) this.register(provider);
    this.toolSearch?.checkNames(this.tools);

    this.log = createLogger((level, data, logger) => {
      const eventKey = this.link?.publish(logger === undefined ? { kind: 'log', level, data } : { kind: 'log', level, data, logger });
      this.logToSessions(level, data, logger, eventKey);
    });
    this.onListChange(this.tools, 'notifications/tools/list_changed');
    this.onListChange(this.prompts, 'notifications/prompts/list_changed');
    this.onListChange(this.resources, 'notifications/resources/list_changed');
    this.onListChange(this.templates, 'notifications/resources/list_changed');
    // Each skill's SKILL.md is in resources/list.
    this.onListChange(this.skills.registry, 'notifications/resources/list_changed');
    this.tasks = new TaskRunner(options.tasks, (what, error) => this.reportError(what, error));
    this.changes.listen({
      filter: { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true },
      wantsResource: (uri) => [...this.readyConnections()].some((connection) => connection.session.subscriptions.has(uri)),
      deliver: (method, params, eventKey) => this.notifySessions(method, params, eventKey),
      end: () => undefined,
      persistent: true,
    });
    this.plugins = new PluginRegistry(this);
    // The built-in features are plugins on the same seam, each owning its methods and capability.
    for (const plugin of corePlugins(this)) this.plugins.addCore(plugin);
  }

  /** Adds a plugin (see McpServer.plugin). */
  plugin<Options>(plugin: Plugin<Options>, options: Options): void {
    if (this.started) {
      throw new DefinitionError('INVALID_OPTION', `McpServer.plugin: add "${String(plugin?.name)}" before the server connects or listens`);
    }
    this.plugins.add(plugin, options);
  }

  /** Adds a provider class (see McpServer.register). */
  register(provider: Constructor): void {
    const added = registerProvider(this, provider);
    for (const { kind, key, at } of added.keys) {
      if (kind === 'tool' && this.toolSearch?.owns(key)) throw new DefinitionError('DUPLICATE_NAME', `${at}: the tool name "${key}" is tool search's; rename the tool or set toolSearch's tool names`);
    }
    // Where this server is mounted, its new names must be free too.
    for (const mount of this.mountedIn) for (const { kind, key, at } of added.keys) mount.checkFree(kind, key, at);
    this.resolver.register(provider);
    added.commit();
    if (added.completions > 0) this.capabilitiesChanged();
    if (this.serving) checkAppLinks(this);
  }

  /** Whether some tool has a UI (MCP Apps); kept until the tools change. */
  get appTools(): boolean {
    if (this.appToolsAt.revision !== this.tools.revision) this.appToolsAt = { revision: this.tools.revision, any: this.tools.list().some((tool) => tool.ui !== undefined) };
    return this.appToolsAt.any;
  }

  /**
   * Checks what can only be checked once every provider is in, when the server first serves:
   * the UI of each app tool, and where nothing may be compiled (Workers), a precompiled validator for every schema.
   */
  private startServing(): void {
    if (this.serving) return;
    checkAppLinks(this);
    assertPrecompiled();
    this.serving = true;
    for (const hook of this.servingHooks.splice(0)) hook();
  }

  httpStageRefusal(stage: HttpStage, added: readonly HttpStage[]) {
    return httpStageRefusal(stage, [...this.httpStages, ...added]);
  }

  hasReadinessCheck(name: string): boolean {
    return this.readinessChecks.has(name);
  }

  /** Whether this replica can serve now: every plugin's check (see McpServer.readiness). */
  readiness(): Readiness {
    const checks: Record<string, boolean> = {};
    let ready = !this.closingStarted;
    for (const [name, check] of this.readinessChecks) {
      let passed: boolean;
      try {
        passed = check() === true;
      } catch (error) {
        this.reportError(`the readiness check "${name}" failed`, error);
        passed = false;
      }
      checks[name] = passed;
      ready &&= passed;
    }
    return { ready, checks };
  }

  onServing(hook: () => void): void {
    if (this.serving) hook();
    else this.servingHooks.push(hook);
  }

  /** Serves a folder of skills (see McpServer.skills). */
  serveSkills(folder: string, options: SkillFolderOptions, reader: SkillFolderReader): void {
    serveSkillFolder(this, reader, folder, options);
  }

  /** Serves one client over the given transport; resolves once the transport has started. */
  async connect(transport: Transport, options: { assumeProtocolVersion?: string; principal?: Principal; restore?: SessionRecord } = {}): Promise<Session> {
    this.startServing();
    this.started = true;
    void this.link?.ready.catch((error) => this.reportError('cluster: subscribing failed', error));
    const connection = new Connection(this, transport, options.principal);
    if (options.assumeProtocolVersion !== undefined) connection.assumeInitialized(options.assumeProtocolVersion);
    if (options.restore) connection.restore(options.restore);
    this.connections.add(connection);
    await connection.start();
    return connection.session;
  }

  /** Serves through a handler made outside (the Node adapter): closed with the runtime. */
  addHttpHandler<H extends { close(graceMs?: number): Promise<void> }>(make: (runtime: this) => H): H {
    this.startServing();
    const handler = make(this);
    this.httpHandlers.add(handler);
    return handler;
  }

  /** A Fetch API handler over this runtime (see McpServer.fetchHandler). */
  fetchHandler(options: FetchHandlerOptions): FetchHandler {
    this.startServing();
    const handler = createFetchHandler(this, options);
    this.httpHandlers.add(handler);
    return handler;
  }

  /** Takes requests from outside: stopped first when the server closes. */
  addListener(listener: Listener): void {
    this.listeners.add(listener);
  }

  /** Runs as soon as the server starts closing, before anything is stopped. */
  onClosing(hook: () => void): void {
    this.closingHooks.push(hook);
  }

  /**
   * Stops serving: listeners stop accepting, in-flight HTTP requests may finish (a few seconds
   * at most), then every connection closes and in-flight requests are cancelled; then the
   * cluster and the plugins' close hooks.
   */
  async close(): Promise<void> {
    this.closingStarted = true;
    for (const hook of this.closingHooks.splice(0)) hook();
    // subscriptions/listen streams end with a result, which goes out before the connections close.
    this.changes.endAll();
    await laterTurn();
    const listeners = [...this.listeners];
    this.listeners.clear();
    const stopped = listeners.map((listener) => listener.stop());
    await Promise.all([...this.httpHandlers].map((handler) => handler.close()));
    this.httpHandlers.clear();
    for (const listener of listeners) listener.drop();
    await Promise.all([...this.connections].map((connection) => connection.close()));
    await Promise.all(stopped);
    await this.link?.close();
    for (const hook of this.closeHooks) {
      try {
        await hook();
      } catch (error) {
        this.reportError('a plugin close hook failed', error);
      }
    }
  }

  /** Live handshake-era sessions. */
  get sessions(): Session[] {
    return [...this.connections].map((connection) => connection.session);
  }

  // FeatureHost

  invoke(target: InvocationTarget, args: readonly unknown[], ctx: Context): unknown {
    return this.invoker.invoke(target, args, ctx);
  }

  /** Shows `child`'s items here under a namespace, as they change (see McpServer.mount). */
  mount(child: ServerRuntime, options: MountOptions): Mount {
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

  /** Throws when a tool may not be named `name` here: tool search's names, a clash where this server is mounted. */
  checkToolName(name: string, where: string): void {
    if (this.toolSearch?.owns(name)) throw new DefinitionError('DUPLICATE_NAME', `${where}: the tool name "${name}" is tool search's`);
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
    this.described.clear();
    for (const mount of this.mountedIn) mount.parent.capabilitiesChanged();
  }

  describe(ctx: Context): Record<string, unknown> {
    return ctx.codec.describe(this, ctx.revision);
  }

  restoreScope(saved: SavedScope, session: Session | undefined): { scope: RequestScope; codec: EraCodec } {
    return restoreScope(saved, session);
  }

  /** The connection serving a ready handshake-era session here, for the messages of its tasks. */
  sessionConnection(id: string): Connection | undefined {
    for (const connection of this.connections) {
      if (connection.session.id === id && connection.session.state === 'ready' && connection.isOpen) return connection;
    }
    return undefined;
  }

  reportError(what: string, error: unknown): void {
    if (this.options.onError) return this.options.onError(what, error);
    const detail = error instanceof Error ? (this.debug ? error.stack : error.message) : String(error);
    writeStderr(`[${this.options.name}] ${what}: ${detail}`);
  }

  // ServerDescription

  capabilities(revision: Revision): Record<string, unknown> {
    return this.describedFor(revision).capabilities;
  }

  extensions(revision: Revision): Record<string, unknown> {
    return this.describedFor(revision).extensions;
  }

  // ConnectionHost

  /** Known once a cluster is provided: requests to clients carry this replica's name. */
  get requestIdPrefix(): string | undefined {
    return this.link ? `${this.link.replicaId}:` : undefined;
  }

  onConnectionClosed(connection: Connection): void {
    this.connections.delete(connection);
  }

  // HttpServerHost

  serveAlone(request: JsonRpcRequest, info: MessageInfo, exchange: AloneExchange): JsonRpcResponse | undefined | Promise<JsonRpcResponse | undefined> {
    this.started = true;
    return serveAlone(this, request, info, exchange);
  }

  headerParams(toolName: string): readonly { name: string; path: readonly string[] }[] {
    return this.tools.get(toolName)?.headerParams ?? [];
  }

  /** How callers are authenticated, when a plugin provided it. */
  get authentication(): Authentication | undefined {
    return this.service(AuthenticationService);
  }

  /** The cluster this server is a replica of, when a plugin provided one. */
  get cluster(): ClusterLink | undefined {
    return this.link;
  }

  // PluginTarget

  routeRefusal(method: string, kind: 'request' | 'notification') {
    return this.dispatcher.refusal(method, kind);
  }

  hasCapability(name: string): boolean {
    return this.declared.has(name);
  }

  hasExtension(name: string): boolean {
    return this.advertised.has(name);
  }

  hasService(service: ServiceKey<unknown>): boolean {
    return this.services.has(service);
  }

  serviceRefusal(service: ServiceKey<unknown>): string | undefined {
    if (service === ClusterService && this.options.requestState?.secret === undefined) {
      return 'a cluster needs requestState.secret (McpServer({ requestState: { secret } })), the same on every replica, so any replica accepts the retries of 2026-07-28 requests';
    }
    return undefined;
  }

  apply({ middlewares, routes, notifications, capabilities, extensions, services, observers, closeHooks, readinessChecks, httpStages }: PluginAdditions): void {
    if (httpStages.length > 0) this.httpStages = [...this.httpStages, ...httpStages];
    for (const [name, check] of readinessChecks) this.readinessChecks.set(name, check);
    for (const observer of observers) this.observers.add(observer);
    for (const [service, value] of services) this.services.set(service, value);
    const cluster = services.get(ClusterService) as ClusterOptions | undefined;
    if (cluster) {
      this.link = new ClusterLink(cluster, (change, eventKey) => this.applyRemoteChange(change, eventKey), (what, error) => this.reportError(what, error));
      const link = this.link;
      this.tasks.attachCluster({ broadcaster: cluster.broadcaster, replicaId: () => link.replicaId, store: cluster.tasks });
    }
    if (services.has(AuthenticationService)) this.access.requireAuthentication();
    for (const feature of Object.keys(ClientFeatureServices) as Array<keyof ClientFeatures>) {
      const provided = services.get(ClientFeatureServices[feature]);
      if (provided !== undefined) (this.clientFeatures as unknown as Record<string, unknown>)[feature] = provided;
    }
    if (middlewares.length > 0) this.dispatcher.use(middlewares);
    for (const [method, handler, eras] of routes) this.dispatcher.route(method, handler, eras);
    for (const [method, handler] of notifications) this.dispatcher.onNotification(method, handler);
    for (const [name, value] of capabilities) this.declared.set(name, value);
    for (const [name, value] of extensions) this.advertised.set(name, value);
    this.closeHooks.push(...closeHooks);
    this.described.clear();
  }

  /** What a plugin provided for this service, if one did. */
  service<T>(key: ServiceKey<T>): T | undefined {
    return this.services.get(key) as T | undefined;
  }

  /** Sends `notifications/resources/updated` to every subscriber of `uri`, here and on every replica. */
  notifyUpdated(uri: string): void {
    this.changes.resourceUpdated(uri, this.link?.publish({ kind: 'resource', uri }));
  }

  private describedFor(revision: Revision): { capabilities: Record<string, unknown>; extensions: Record<string, unknown> } {
    let described = this.described.get(revision);
    if (!described) {
      described = { capabilities: valuesFor(this.declared, revision), extensions: valuesFor(this.advertised, revision) };
      this.described.set(revision, described);
    }
    return described;
  }

  private onListChange(registry: Registry<unknown>, notification: string): void {
    registry.onChange(() => {
      this.described.clear();
      // Fixed resources and templates share one notification: send it once per tick.
      if (this.pendingListChanges.size === 0) queueMicrotask(() => this.flushListChanges());
      this.pendingListChanges.add(notification);
    });
  }

  private flushListChanges(): void {
    const notifications = [...this.pendingListChanges];
    this.pendingListChanges.clear();
    for (const method of notifications) {
      this.changes.listChanged(method, this.link?.publish({ kind: 'list', method }));
    }
  }

  /** A change or log on another replica of the cluster, for this replica's clients. */
  private applyRemoteChange(change: ClusterChange, eventKey: string | undefined): void {
    if (change.kind === 'list') this.changes.listChanged(change.method, eventKey);
    else if (change.kind === 'resource') this.changes.resourceUpdated(change.uri, eventKey);
    else if (isLoggingLevel(change.level)) this.logToSessions(change.level, change.data, change.logger, eventKey);
  }

  private logToSessions(level: LoggingLevel, data: unknown, logger: string | undefined, eventKey: string | undefined): void {
    for (const connection of this.readyConnections()) connection.log(connection.session, level, data, logger, undefined, undefined, eventKey);
  }

  /**
   * Handshake-era sessions hear of changes only to lists they were told about at initialize,
   * and of updates only to the resources they subscribed to.
   */
  private notifySessions(method: string, params: Record<string, unknown>, eventKey: string | undefined): void {
    if (method === 'notifications/resources/updated') {
      for (const connection of this.readyConnections()) {
        if (connection.session.subscriptions.has(params.uri as string)) connection.notify(method, params, undefined, eventKey);
      }
      return;
    }
    const kind = method.split('/')[1];
    for (const connection of this.readyConnections()) {
      if (connection.session.declaredCapabilities[kind]) connection.notify(method, undefined, undefined, eventKey);
    }
  }

  private *readyConnections(): Iterable<Connection> {
    for (const connection of this.connections) if (connection.session.state === 'ready') yield connection;
  }
}

/** Each declared value for one revision, in the order declared; a function may leave itself out. */
function valuesFor(declared: ReadonlyMap<string, CoreCapabilityValue>, revision: Revision): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const [name, value] of declared) {
    const shown = typeof value === 'function' ? value(revision.version, revision) : value;
    if (shown !== undefined) values[name] = shown;
  }
  return values;
}

function positiveInteger(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!(Number.isInteger(value) && value > 0)) throw new DefinitionError('INVALID_OPTION', `McpServer: ${name} must be a positive integer, not ${String(value)}`);
  return value;
}
