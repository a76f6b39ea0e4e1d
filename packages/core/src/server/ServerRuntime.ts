import 'reflect-metadata';
import { container as rootContainer } from 'tsyringe';
import type { DependencyContainer } from 'tsyringe';
import { AuthenticationService } from '../access';
import type { Authentication } from '../access';
import type { ClusterOptions, SessionRecord } from '../cluster';
import { ProviderResolver } from '../di';
import { restoreScope } from '../eras';
import type { EraCodec, SavedScope, ServerDescription } from '../eras';
import { DefinitionError } from '../errors';
import { checkAppLinks } from '../features/apps';
import { corePlugins } from '../features/corePlugins';
import type { FeatureServer } from '../features/rooms';
import { ToolSearch } from '../features/toolSearch';
import type { Catalog } from '../items/Catalog';
import type { ItemHost } from '../items/ItemHost';
import type { Constructor } from '../metadata';
import type { JsonRpcRequest, JsonRpcResponse, MessageInfo, Principal, Revision, Transport } from '../protocol';
import type { RequestScope, Session } from '../session';
import { TaskRunner } from '../tasks';
import { Context } from '../runtime/Context';
import type { ClientFeatures } from '../runtime/Context';
import { Dispatcher } from '../runtime/Dispatcher';
import { Invoker } from '../runtime/Invoker';
import { Observers } from '../runtime/observers';
import { PluginRegistry } from '../runtime/plugins';
import type { Plugin, PluginAdditions } from '../runtime/plugins';
import { serveAlone } from '../runtime/serveAlone';
import { ClientFeatureServices, ClusterService } from '../runtime/services';
import type { SkillFolderOptions } from '../skills';
import { laterTurn, writeStderr } from '../platform';
import { assertPrecompiled } from '../validation';
import { createFetchHandler } from '../transports';
import type { AloneExchange, FetchHandler, FetchHandlerOptions, HttpServerHost, Readiness } from '../transports';
import type { Connection, ConnectionHost } from '../runtime/Connection';
import type { McpServerOptions } from './options';
import { PluginState } from './PluginState';
import { ServerCatalog } from './ServerCatalog';
import { ServerSessions } from './ServerSessions';
import type { HttpHandlerLike } from './ServerSessions';
import { settingsOf } from './settings';
import type { ServerSettings } from './settings';
import { serveSkillFolder } from './skillFolders';
import type { SkillFolderReader } from './skillFolders';

// The settings are the runtime's own fields (ConnectionHost, ServerDescription read them there).
export interface ServerRuntime extends ServerSettings {}

/**
 * The wiring of an McpServer: it builds the catalog (what the server serves) and the sessions
 * (whom it serves), the dispatcher with its middleware, the invoker of author code and the
 * plugins, and hands each part what it uses: the features their rooms, connections and HTTP
 * the host they are written against (ConnectionHost, HttpServerHost, ServerDescription).
 */
export class ServerRuntime implements FeatureServer, ConnectionHost, ServerDescription, HttpServerHost {
  readonly catalog: ServerCatalog;
  readonly sessions: ServerSessions;
  readonly dispatcher = new Dispatcher();
  readonly observers = new Observers((what, error) => this.reportError(what, error));
  readonly container: DependencyContainer;
  readonly tasks: TaskRunner;
  /** `ctx.sample/elicit/roots`, as the built-in client-feature plugins provide them. */
  readonly clientFeatures = {} as ClientFeatures;
  /** How the server's own items run author code. */
  readonly items: ItemHost & Pick<Catalog, 'access'>;
  private readonly resolver: ProviderResolver;
  private readonly plugged: PluginState;
  private readonly plugins: PluginRegistry;
  private readonly closingHooks: Array<() => void> = [];
  private closingStarted = false;
  private started = false;
  /** Whether the app links were checked: once the server serves, then for every provider added. */
  private serving = false;
  private readonly servingHooks: Array<() => void> = [];

  /** What the era codecs put on the wire of this server (ServerDescription): the runtime itself. */
  get server(): ServerDescription {
    return this;
  }

  constructor(private readonly options: McpServerOptions) {
    Object.assign(this, settingsOf(options));
    const toolSearch = options.toolSearch === undefined ? undefined : new ToolSearch(options.toolSearch === true ? {} : options.toolSearch);
    this.container = options.container ?? rootContainer;
    this.resolver = new ProviderResolver(this.container, Context);
    const invoker = new Invoker(this.resolver);
    const report = (what: string, error: unknown) => this.reportError(what, error);
    this.plugged = new PluginState({ serverInfo: this.serverInfo, dispatcher: this.dispatcher, hasRequestStateSecret: options.requestState?.secret !== undefined, declaredScopes: () => this.catalog.declaredScopes(), itemOf: (method, params) => this.catalog.itemOf(method, params), reportError: report, applyElsewhere: (additions) => this.applyPlugin(additions) });
    this.catalog = new ServerCatalog({ pageSize: options.pageSize, dispatcher: this.dispatcher, container: this.container, debug: this.debug, reportError: report, publish: (change) => this.sessions.publish(change), declarationsChanged: () => this.plugged.declarationsChanged(), resourceUpdated: (uri) => this.observers.resourceUpdated(uri) });
    this.sessions = new ServerSessions(this.catalog.changes, report);
    this.items = { invoke: (target, args, ctx) => invoker.invoke(target, args, ctx), reportError: report, debug: this.debug, access: this.catalog.access, completions: this.catalog.completions };
    // Tool search's two names are no tool's, from the first provider on.
    if (toolSearch) this.catalog.reserveTools({ holder: 'tool search', option: 'toolSearch', owns: (name) => toolSearch.owns(name) });
    for (const provider of options.providers ?? []) this.register(provider);
    toolSearch?.checkNames(this.catalog.tools);
    this.catalog.broadcastChanges();
    this.tasks = new TaskRunner(options.tasks, report);
    this.plugins = new PluginRegistry(this.plugged);
    // The built-in features are plugins on the same seam, each owning its methods and capability.
    for (const plugin of corePlugins({ catalog: this.catalog, server: this, sessions: this.sessions, items: this.items, toolSearch, serverCard: this.serverCard })) this.plugins.addCore(plugin);
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
    this.catalog.register(provider, this.items, (added) => this.resolver.register(added));
    if (this.serving) checkAppLinks(this.catalog);
  }

  /**
   * Checks what can only be checked once every provider is in, when the server first serves:
   * the UI of each app tool, and where nothing may be compiled (Workers), a precompiled validator for every schema.
   */
  private startServing(): void {
    if (this.serving) return;
    checkAppLinks(this.catalog);
    assertPrecompiled();
    this.serving = true;
    for (const hook of this.servingHooks.splice(0)) hook();
  }

  onServing(hook: () => void): void {
    if (this.serving) hook();
    else this.servingHooks.push(hook);
  }

  /** Whether this replica can serve now: every plugin's check (see McpServer.readiness). */
  readiness(): Readiness {
    return this.plugged.readiness(this.closingStarted);
  }

  /** Serves a folder of skills (see McpServer.skills). */
  serveSkills(folder: string, options: SkillFolderOptions, reader: SkillFolderReader): void {
    serveSkillFolder(this.catalog, (hook) => this.onClosing(hook), reader, folder, options);
  }

  /** Serves one client over the given transport; resolves once the transport has started. */
  connect(transport: Transport, options: { assumeProtocolVersion?: string; principal?: Principal; restore?: SessionRecord } = {}): Promise<Session> {
    this.startServing();
    this.started = true;
    return this.sessions.connect(this, transport, options);
  }

  /** Serves through a handler made outside (the Node adapter): closed with the runtime. */
  addHttpHandler<H extends HttpHandlerLike>(make: (runtime: this) => H): H {
    this.startServing();
    return this.sessions.addHttpHandler(make(this));
  }

  /** A Fetch API handler over this runtime (see McpServer.fetchHandler). */
  fetchHandler(options: FetchHandlerOptions): FetchHandler {
    this.startServing();
    return this.sessions.addHttpHandler(createFetchHandler(this, options));
  }

  /** Runs as soon as the server starts closing, before anything is stopped. */
  onClosing(hook: () => void): void {
    this.closingHooks.push(hook);
  }

  /** Stops serving: the sessions close (see ServerSessions.close), then the plugins' close hooks run. */
  async close(): Promise<void> {
    this.closingStarted = true;
    for (const hook of this.closingHooks.splice(0)) hook();
    // subscriptions/listen streams end with a result, which goes out before the connections close.
    this.catalog.changes.endAll();
    await laterTurn();
    await this.sessions.close();
    await this.plugged.runCloseHooks();
  }

  describe(ctx: Context): Record<string, unknown> {
    return ctx.codec.describe(this, ctx.revision);
  }

  restoreScope(saved: SavedScope, session: Session | undefined): { scope: RequestScope; codec: EraCodec } {
    return restoreScope(saved, session);
  }

  reportError(what: string, error: unknown): void {
    if (this.options.onError) return this.options.onError(what, error);
    const detail = error instanceof Error ? (this.debug ? error.stack : error.message) : String(error);
    writeStderr(`[${this.options.name}] ${what}: ${detail}`);
  }

  capabilities(revision: Revision): Record<string, unknown> {
    return this.plugged.capabilities(revision);
  }

  extensions(revision: Revision): Record<string, unknown> {
    return this.plugged.extensions(revision);
  }

  get requestIdPrefix(): string | undefined {
    return this.sessions.requestIdPrefix;
  }

  onConnectionClosed(connection: Connection): void {
    this.sessions.onConnectionClosed(connection);
  }

  serveAlone(request: JsonRpcRequest, info: MessageInfo, exchange: AloneExchange): JsonRpcResponse | undefined | Promise<JsonRpcResponse | undefined> {
    this.started = true;
    return serveAlone(this, request, info, exchange);
  }

  headerParams(toolName: string): readonly { name: string; path: readonly string[] }[] {
    return this.catalog.tools.get(toolName)?.headerParams ?? [];
  }

  get httpStages() {
    return this.plugged.httpStages;
  }

  /** How callers are authenticated, when a plugin provided it. */
  get authentication(): Authentication | undefined {
    return this.plugged.service(AuthenticationService);
  }

  /** The cluster this server is a replica of, when a plugin provided one. */
  get cluster() {
    return this.sessions.cluster;
  }

  /** A plugin's additions for the other parts of the server: observers, the cluster, authentication, client features, routes. */
  private applyPlugin({ middlewares, interceptors, routes, notifications, services, observers }: PluginAdditions): void {
    for (const observer of observers) this.observers.add(observer);
    const cluster = services.get(ClusterService) as ClusterOptions | undefined;
    if (cluster) {
      const link = this.sessions.joinCluster(cluster);
      this.tasks.attachCluster({ broadcaster: cluster.broadcaster, replicaId: () => link.replicaId, store: cluster.tasks });
    }
    if (services.has(AuthenticationService)) this.catalog.access.requireAuthentication();
    for (const feature of Object.keys(ClientFeatureServices) as Array<keyof ClientFeatures>) {
      const provided = services.get(ClientFeatureServices[feature]);
      if (provided !== undefined) (this.clientFeatures as unknown as Record<string, unknown>)[feature] = provided;
    }
    this.dispatcher.use(middlewares, interceptors);
    for (const [method, handler, eras] of routes) this.dispatcher.route(method, handler, eras);
    for (const [method, handler] of notifications) this.dispatcher.onNotification(method, handler);
  }
}
