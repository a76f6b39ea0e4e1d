import 'reflect-metadata';
import { container as rootContainer } from 'tsyringe';
import type { DependencyContainer } from 'tsyringe';
import { AccessPolicy } from '../access';
import type { Authentication, Principal } from '../access';
import type { SessionRecord } from '../cluster';
import { ProviderResolver } from '../di';
import { DefinitionError } from '../errors';
import { completionKey } from '../features/completion';
import { corePlugins } from '../features/corePlugins';
import { metadataStore } from '../metadata';
import type { CompletionDefinition, Constructor, Icon } from '../metadata';
import { randomBytes } from 'node:crypto';
import { featuresOf, SUPPORTED_VERSIONS } from '../protocol';
import { LOGGING_LEVELS } from '../session';
import type { CacheHint, LoggingLevel, ModernSettings, Session } from '../session';
import type { Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHttpHandler, StdioTransport } from '../transports';
import type { HttpHandlerOptions, NodeHttpHandler, StdioTransportOptions, Transport } from '../transports';
import { buildPrompt } from '../runtime/buildPrompt';
import type { RegisteredPrompt } from '../runtime/buildPrompt';
import { buildResource } from '../runtime/buildResource';
import type { RegisteredResource } from '../runtime/buildResource';
import { buildTool } from '../runtime/buildTool';
import type { RegisteredTool } from '../runtime/buildTool';
import { Connection } from '../runtime/Connection';
import type { ConnectionHost } from '../runtime/Connection';
import { Context } from '../runtime/Context';
import type { ClientFeatures } from '../runtime/Context';
import { ChangeBroadcaster } from '../runtime/ChangeBroadcaster';
import { Dispatcher } from '../runtime/Dispatcher';
import type { FeatureHost } from '../runtime/FeatureHost';
import { PluginRegistry } from '../runtime/plugins';
import type { CapabilityValue, Plugin, PluginAdditions } from '../runtime/plugins';
import { Invoker } from '../runtime/Invoker';
import type { InvocationTarget, Middleware } from '../runtime/middleware';
import { createLogger, isLoggingLevel } from '../runtime/Logger';
import type { Logger } from '../runtime/Logger';
import { Paginator } from '../runtime/Paginator';
import { ClusterLink } from './ClusterLink';
import type { ClusterChange } from './ClusterLink';
import { Registry } from '../runtime/Registry';
import { TaskRunner } from '../tasks/TaskRunner';
import type { TaskOptions } from '../tasks/TaskRunner';

export interface McpServerOptions {
  /** `serverInfo.name`. */
  name: string;
  /** `serverInfo.version`. */
  version: string;
  title?: string;
  description?: string;
  websiteUrl?: string;
  icons?: Icon[];
  /** Sent to the client at initialize: how to use this server. */
  instructions?: string;
  /** Classes whose decorated methods become tools. */
  providers?: Constructor[];
  /** The container providers are resolved from; tsyringe's root container by default. */
  container?: DependencyContainer;
  /** Put internal error messages into responses. Off by default: they may leak internals. */
  debug?: boolean;
  /** Milliseconds a request to the client (sampling, ping, …) may take; default 60 000. */
  requestTimeoutMs?: number;
  /** Where diagnostics go; stderr by default (stdout belongs to the protocol on stdio). */
  onError?: (what: string, error: unknown) => void;
  /** Items per page of every list (tools, prompts, resources, templates); `false` turns paging off. Default 100. */
  pageSize?: number | false;
  /** Log threshold for sessions that never sent `logging/setLevel`; default `info`. */
  logLevel?: LoggingLevel;
  /** Log messages per second one session may receive, in bursts of twice that; default 100. */
  logRateLimit?: number;
  /**
   * 2026-07-28 caching hints (`ttlMs`, `cacheScope`) of the cacheable results, per method.
   * Default `ttlMs: 0` (re-fetch at will; list_changed still tells of changes), `public` for
   * the lists and `server/discover`, `private` for `resources/read`.
   */
  cacheHints?: Partial<Record<CacheableMethod, Partial<CacheHint>>>;
  /**
   * The key and lifetime of the `requestState` of 2026-07-28 multi round-trip requests.
   * Without a secret each process makes a random one: give every instance behind one load
   * balancer the same secret, so any of them accepts a retry. Default lifetime 10 minutes.
   */
  requestState?: { secret?: string | Uint8Array; ttlMs?: number };
  /** Requests one connection (session, stdio pipe) may have in progress at once; default 1000. More get -32600. */
  maxRequestsInFlight?: number;
  /** Messages one JSON-RPC batch (protocol 2025-03-26) may hold; default 100. A larger batch gets -32600. */
  maxBatchSize?: number;
  /**
   * MCP tasks (tools declared with `@Tool({ task })`): the store (a cluster's `tasks` store
   * otherwise, else one in memory), the suggested poll interval, default and maximum ttl, and
   * the lease replicas hold on the tasks they run. See docs/reference/tasks.md.
   */
  tasks?: TaskOptions;
}

/** The methods whose 2026-07-28 results carry caching hints. */
export type CacheableMethod = 'server/discover' | 'tools/list' | 'prompts/list' | 'resources/list' | 'resources/templates/list' | 'resources/read';

const DEFAULT_CACHE_HINTS: Record<CacheableMethod, CacheHint> = {
  'server/discover': { ttlMs: 0, cacheScope: 'public' },
  'tools/list': { ttlMs: 0, cacheScope: 'public' },
  'prompts/list': { ttlMs: 0, cacheScope: 'public' },
  'resources/list': { ttlMs: 0, cacheScope: 'public' },
  'resources/templates/list': { ttlMs: 0, cacheScope: 'public' },
  'resources/read': { ttlMs: 0, cacheScope: 'private' },
};

export interface StdioListenOptions extends StdioTransportOptions {
  transport: 'stdio';
  /** Close cleanly on SIGINT and SIGTERM and exit the process; default true. */
  handleSignals?: boolean;
}

export interface HttpListenOptions extends HttpHandlerOptions {
  transport: 'http';
  /** Interface to bind; default 127.0.0.1 (loopback only). */
  host?: string;
  /** Port; default 3000, 0 picks a free one. */
  port?: number;
  /** Endpoint path; default `/mcp`. */
  path?: string;
  /** Close cleanly on SIGINT and SIGTERM and exit the process; default true. */
  handleSignals?: boolean;
}

export type ListenOptions = StdioListenOptions | HttpListenOptions;

/** Where an HTTP listener is reachable. */
export interface ListenAddress {
  host: string;
  port: number;
  /** The endpoint URL, e.g. `http://127.0.0.1:3000/mcp`. */
  url: string;
}

export interface ConnectOptions {
  /**
   * Serve without an `initialize` handshake, at this protocol version (stateless HTTP). The
   * client's capabilities are unknown, so features that need them report so.
   */
  assumeProtocolVersion?: string;
  /**
   * The caller of every request on this connection, for transports that carry no credentials
   * (stdio, in-memory): `ctx.principal`, and what `@Scopes`, `@Roles` and `@Guard` check.
   */
  principal?: Principal;
}

/**
 * Run-time control over one list (tools and prompts by name, resources by uri or template).
 * Every change sends `notifications/<kind>/list_changed` once per tick.
 */
export interface ListControl {
  enable(key: string): boolean;
  disable(key: string): boolean;
  remove(key: string): boolean;
  /** True when an enabled item has that key. */
  has(key: string): boolean;
  /** Keys of the enabled items, in listing order. */
  names(): string[];
}

export type ToolsControl = ListControl;
export type PromptsControl = ListControl;

export interface ResourcesControl extends ListControl {
  /** Sends `notifications/resources/updated` to the sessions subscribed to `uri`. */
  notifyUpdated(uri: string): void;
}

/**
 * An MCP server assembled from decorated provider classes. Construction builds every tool
 * (schemas, validators) and fails fast on declaration mistakes; `listen` or `connect`
 * serves it.
 */
export class McpServer {
  readonly tools: ToolsControl;
  readonly prompts: PromptsControl;
  readonly resources: ResourcesControl;
  /** Log messages outside any request, to every initialized session (each by its own level). */
  readonly log: Logger;
  private readonly toolRegistry = new Registry<RegisteredTool>('tool');
  private readonly resourceRegistry = new Registry<RegisteredResource>('resource');
  private readonly templateRegistry = new Registry<RegisteredResource>('resource template');
  private readonly promptRegistry = new Registry<RegisteredPrompt>('prompt');
  private readonly completions = new Map<string, CompletionDefinition & { provider: Constructor; invocation: InvocationTarget }>();
  private readonly resolver: ProviderResolver;
  private readonly container: DependencyContainer;
  private readonly connections = new Set<Connection>();
  private readonly httpHandlers = new Set<NodeHttpHandler>();
  private readonly httpServers = new Set<HttpServer>();
  private removeSignalHandlers: (() => void) | undefined;
  private readonly dispatcher = new Dispatcher();
  /** Capabilities of the `initialize` result, in the order declared (built-in features first). */
  private readonly capabilities = new Map<string, CapabilityValue>();
  /** `capabilities.extensions`, one entry per extension, from plugins' `extension(name, settings)`. */
  private readonly extensions = new Map<string, CapabilityValue>();
  private readonly closeHooks: Array<() => void | Promise<void>> = [];
  /** `ctx.sample/elicit/roots`, as the built-in client-feature plugins provide them. */
  private readonly clientFeatures: Partial<ClientFeatures> = {};
  private readonly plugins: PluginRegistry;
  private started = false;
  private readonly initializeResults = new Map<string, Record<string, unknown>>();
  private readonly pendingListChanges = new Set<string>();
  private readonly connectionHost: ConnectionHost;
  private readonly changes = new ChangeBroadcaster();
  private readonly access = new AccessPolicy();
  private auth: Authentication | undefined;
  /** MCP tasks; idle until a tool supports them. */
  private readonly taskRunner: TaskRunner;
  private link: ClusterLink | undefined;

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
    this.container = options.container ?? rootContainer;
    this.resolver = new ProviderResolver(this.container, Context);
    for (const provider of options.providers ?? []) this.register(provider);

    this.tools = listControl(this.toolRegistry);
    this.prompts = listControl(this.promptRegistry);
    this.resources = {
      ...resourceListControl(this.resourceRegistry, this.templateRegistry),
      notifyUpdated: (uri) => this.notifySubscribers(uri),
    };
    this.log = createLogger((level, data, logger) => {
      this.logToSessions(level, data, logger);
      this.link?.publish(logger === undefined ? { kind: 'log', level, data } : { kind: 'log', level, data, logger });
    });
    this.onListChange(this.toolRegistry, 'notifications/tools/list_changed');
    this.onListChange(this.promptRegistry, 'notifications/prompts/list_changed');
    this.onListChange(this.resourceRegistry, 'notifications/resources/list_changed');
    this.onListChange(this.templateRegistry, 'notifications/resources/list_changed');

    this.taskRunner = new TaskRunner(options.tasks, (what, error) => this.reportError(what, error));
    const invoker = new Invoker(this.resolver);
    const featureHost: FeatureHost = {
      tools: this.toolRegistry,
      resources: this.resourceRegistry,
      templates: this.templateRegistry,
      prompts: this.promptRegistry,
      completions: this.completions,
      toolPages: new Paginator('tools', this.toolRegistry, pageSize),
      resourcePages: new Paginator('resources', this.resourceRegistry, pageSize),
      templatePages: new Paginator('templates', this.templateRegistry, pageSize),
      promptPages: new Paginator('prompts', this.promptRegistry, pageSize),
      debug: this.debug,
      access: this.access,
      invoke: (target, args, ctx) => invoker.invoke(target, args, ctx),
      reportError: (what, error) => this.reportError(what, error),
      changes: this.changes,
      tasks: this.taskRunner,
      container: this.container,
      sessionConnection: (id) => this.sessionConnection(id),
      capabilities: (version) => this.initializeResult(version).capabilities as Record<string, unknown>,
      discover: (version) => {
        const { capabilities, instructions } = this.initializeResult(version);
        const result: Record<string, unknown> = { supportedVersions: SUPPORTED_VERSIONS, capabilities };
        if (instructions !== undefined) result.instructions = instructions;
        return result;
      },
    };
    this.changes.listen({
      filter: { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true },
      wantsResource: (uri) => [...this.readyConnections()].some((connection) => connection.session.subscriptions.has(uri)),
      deliver: (method, params) => this.notifySessions(method, params),
      end: () => undefined,
      persistent: true,
    });
    this.plugins = new PluginRegistry({
      serverInfo: { name: options.name, version: options.version },
      routeRefusal: (method, kind) => this.dispatcher.refusal(method, kind),
      hasCapability: (name) => this.capabilities.has(name),
      hasExtension: (name) => this.extensions.has(name),
      hasClientFeature: (feature) => this.clientFeatures[feature] !== undefined,
      hasAuthentication: () => this.auth !== undefined,
      hasCluster: () => this.link !== undefined,
      clusterRefusal: () =>
        this.options.requestState?.secret === undefined
          ? 'a cluster needs requestState.secret (McpServer({ requestState: { secret } })), the same on every replica, so any replica accepts the retries of 2026-07-28 requests'
          : undefined,
      apply: (additions) => this.applyPlugin(additions),
      reportError: (what, error) => this.reportError(what, error),
    });
    // The built-in features are plugins on the same seam, each owning its methods and capability.
    for (const plugin of corePlugins(featureHost)) this.plugins.addCore(plugin);

    const cluster = () => this.link;
    this.connectionHost = {
      dispatcher: this.dispatcher,
      // Known once a cluster plugin is added: requests to clients carry this replica's name.
      get requestIdPrefix() {
        const link = cluster();
        return link ? `${link.replicaId}:` : undefined;
      },
      debug: this.debug,
      container: this.container,
      // Complete: the core plugins above provide every client feature.
      clientFeatures: this.clientFeatures as ClientFeatures,
      defaultLogLevel: options.logLevel ?? 'info',
      logRateLimit: options.logRateLimit ?? 100,
      requestTimeoutMs: options.requestTimeoutMs ?? 60_000,
      initializeResult: (version) => this.initializeResult(version),
      reportError: (what, error) => this.reportError(what, error),
      onConnectionClosed: (connection) => this.connections.delete(connection),
      modern: modernSettings(options),
      maxRequestsInFlight: positiveInteger(options.maxRequestsInFlight, 1000, 'maxRequestsInFlight'),
      maxBatchSize: positiveInteger(options.maxBatchSize, 100, 'maxBatchSize'),
    };
  }

  /**
   * Adds middleware around every request the server routes (all methods but the `initialize`
   * handshake), outermost first, in the order added. Returns the server, so calls chain.
   */
  use(...middlewares: Middleware[]): this {
    this.dispatcher.use(middlewares);
    return this;
  }

  /**
   * Adds a plugin: its routes, capabilities, middleware and close hooks. Checked here: a
   * duplicate name, a dependency not added before, a route or capability already taken, or a
   * server already serving fail with a DefinitionError and add nothing. Returns the server.
   */
  plugin<Options>(plugin: Plugin<Options>, options?: Options): this {
    if (this.started) {
      throw new DefinitionError('INVALID_OPTION', `McpServer.plugin: add "${String(plugin?.name)}" before the server connects or listens`);
    }
    this.plugins.add(plugin, options as Options);
    return this;
  }

  get debug(): boolean {
    return this.options.debug ?? false;
  }

  /**
   * Adds a provider class (its tools, resources, prompts and completions), at startup or at
   * run time; clients hear `list_changed`. Fails with a DefinitionError on declaration mistakes.
   */
  register(provider: Constructor): void {
    const origin = (methodName: string) => `${provider.name}.${methodName}`;
    const tools = metadataStore.definitionsOf(provider, 'tool').map((d) => ({ item: buildTool(d, provider), at: origin(d.methodName) }));
    const resources = metadataStore
      .definitionsOf(provider, 'resource')
      .map((d) => ({ item: buildResource(d, provider), at: origin(d.methodName) }));
    const prompts = metadataStore.definitionsOf(provider, 'prompt').map((d) => ({ item: buildPrompt(d, provider), at: origin(d.methodName) }));
    const additions: Array<{ registry: Registry<unknown>; key: string; item: unknown; at: string }> = [
      ...tools.map(({ item, at }) => ({ registry: this.toolRegistry as Registry<unknown>, key: item.name, item, at })),
      ...resources.map(({ item, at }) => ({
        registry: (item.template ? this.templateRegistry : this.resourceRegistry) as Registry<unknown>,
        key: item.key,
        item,
        at,
      })),
      ...prompts.map(({ item, at }) => ({ registry: this.promptRegistry as Registry<unknown>, key: item.name, item, at })),
    ];
    // Check every name first, so a failing class leaves nothing of itself registered.
    const claimed = new Set<string>();
    for (const { registry, key, at } of additions) {
      const id = `${registry.kind}\u0000${key}`;
      if (registry.has(key) || claimed.has(id)) {
        throw new DefinitionError('DUPLICATE_NAME', `${at}: a ${registry.kind} named "${key}" is already registered; give one of them another name`);
      }
      claimed.add(id);
    }
    const completions = metadataStore.definitionsOf(provider, 'completion');
    const promptNames = new Set(prompts.map((p) => p.item.name));
    const templateKeys = new Set(resources.filter((r) => r.item.template).map((r) => r.item.key));
    const completed = new Set<string>();
    for (const definition of completions) {
      this.checkCompletion(definition, provider, promptNames, templateKeys);
      const key = completionKey(definition.options);
      if (completed.has(key)) {
        throw new DefinitionError('DUPLICATE_NAME', `${origin(definition.methodName)}: argument "${definition.options.argument}" already has a @Completion`);
      }
      completed.add(key);
    }
    const completers = completions.map((definition) => ({
      ...definition,
      provider,
      invocation: { kind: 'completion' as const, name: definition.options.argument, provider, methodName: definition.methodName },
    }));
    this.access.register([...additions.map(({ item }) => (item as { target: InvocationTarget }).target), ...completers.map((c) => c.invocation)]);

    this.resolver.register(provider);
    for (const { registry, key, item, at } of additions) registry.add(key, item, at);
    for (const completer of completers) this.completions.set(completionKey(completer.options), completer);
    if (completions.length > 0) this.initializeResults.clear();
  }

  /** @internal How HTTP requests are authenticated, when a plugin set it. */
  get authentication(): Authentication | undefined {
    return this.auth;
  }

  /** @internal The arguments of a tool that 2026-07-28 HTTP requests mirror in `Mcp-Param-*` headers. */
  headerParams(toolName: string): readonly { name: string; path: readonly string[] }[] {
    return this.toolRegistry.get(toolName)?.headerParams ?? [];
  }

  /** @internal The cluster this server is a replica of, as the HTTP side uses it. */
  get cluster(): ClusterLink | undefined {
    return this.link;
  }

  /** Serves one client over the given transport; resolves once the transport has started. */
  async connect(transport: Transport, options: ConnectOptions & { restore?: SessionRecord } = {}): Promise<Session> {
    this.started = true;
    void this.link?.ready.catch((error) => this.reportError('cluster: subscribing failed', error));
    const connection = new Connection(this.connectionHost, transport, options.principal);
    if (options.assumeProtocolVersion !== undefined) connection.assumeInitialized(options.assumeProtocolVersion);
    if (options.restore) connection.restore(options.restore);
    this.connections.add(connection);
    await connection.start();
    return connection.session;
  }

  /**
   * Serves over stdio (resolves once listening; the process ends when stdin closes, after
   * in-flight requests finish) or over HTTP on 127.0.0.1 by default (resolves with the
   * address). Both close cleanly on SIGINT/SIGTERM unless `handleSignals: false`.
   */
  async listen(options: StdioListenOptions): Promise<void>;
  async listen(options: HttpListenOptions): Promise<ListenAddress>;
  async listen(options: ListenOptions): Promise<void | ListenAddress> {
    if (options.transport === 'http') return this.listenHttp(options);
    if (options.transport !== 'stdio') {
      throw new DefinitionError('INVALID_OPTION', `McpServer.listen: unknown transport ${JSON.stringify((options as { transport: unknown }).transport)}; use 'stdio' or 'http'`);
    }
    const transport = new StdioTransport(options);
    // stdio carries no credentials: the authentication says who the local caller is.
    await this.connect(transport, { principal: this.auth?.localPrincipal });
    if (options.handleSignals ?? true) this.closeOnSignals();
  }

  /**
   * A Node `(req, res)` handler serving Streamable HTTP (and, unless turned off, the legacy
   * HTTP+SSE transport) for mounting in node:http, Express, Fastify or any Node server.
   */
  httpHandler(options: HttpHandlerOptions = {}): NodeHttpHandler {
    const handler = createHttpHandler(this, options);
    this.httpHandlers.add(handler);
    return handler;
  }

  /**
   * Stops serving: HTTP listeners stop accepting, in-flight HTTP requests may finish (a few
   * seconds at most), then every connection closes and in-flight requests are cancelled.
   */
  async close(): Promise<void> {
    this.removeSignalHandlers?.();
    // subscriptions/listen streams end with a result, which goes out before the connections close.
    this.changes.endAll();
    await new Promise((resolve) => setImmediate(resolve));
    const listeners = [...this.httpServers];
    this.httpServers.clear();
    const closing = listeners.map((server) => new Promise<void>((resolve) => server.close(() => resolve())));
    await Promise.all([...this.httpHandlers].map((handler) => handler.close()));
    this.httpHandlers.clear();
    for (const server of listeners) server.closeAllConnections();
    await Promise.all([...this.connections].map((connection) => connection.close()));
    await Promise.all(closing);
    await this.link?.close();
    for (const hook of this.closeHooks) {
      try {
        await hook();
      } catch (error) {
        this.reportError('a plugin close hook failed', error);
      }
    }
  }

  private async listenHttp(options: HttpListenOptions): Promise<ListenAddress> {
    const { host = '127.0.0.1', port = 3000, path = '/mcp' } = options;
    const handler = this.httpHandler({ ...options, path });
    // node:http is loaded only by servers that listen over HTTP.
    const { createServer }: typeof import('node:http') = require('node:http');
    const server = createServer((req, res) => void handler(req, res));
    this.httpServers.add(server);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    if (options.handleSignals ?? true) this.closeOnSignals();
    const address = server.address() as AddressInfo;
    const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    return { host: address.address, port: address.port, url: `http://${shownHost}:${address.port}${path}` };
  }

  /**
   * @internal The task runtime. The cluster wiring calls `taskRuntime.attachCluster({ broadcaster,
   * replicaId, store })` so the replicas share tasks and hear of each other's status changes.
   */
  get taskRuntime(): TaskRunner {
    return this.taskRunner;
  }

  /** The connection serving a ready handshake-era session here, for the messages of its tasks. */
  private sessionConnection(id: string): Connection | undefined {
    for (const connection of this.connections) {
      if (connection.session.id === id && connection.session.state === 'ready' && connection.isOpen) return connection;
    }
    return undefined;
  }

  /** Live handshake-era sessions. */
  get sessions(): Session[] {
    return [...this.connections].map((connection) => connection.session);
  }

  private initializeResult(version: string): Record<string, unknown> {
    let result = this.initializeResults.get(version);
    if (!result) {
      const features = featuresOf(version);
      const { name, version: serverVersion, title, description, websiteUrl, icons, instructions } = this.options;
      const serverInfo: Record<string, unknown> = { name, version: serverVersion };
      if (features.titlesAndStructuredOutput && title !== undefined) serverInfo.title = title;
      if (features.icons) {
        if (description !== undefined) serverInfo.description = description;
        if (websiteUrl !== undefined) serverInfo.websiteUrl = websiteUrl;
        if (icons !== undefined) serverInfo.icons = icons;
      }
      const capabilities: Record<string, unknown> = {};
      for (const [name, value] of this.capabilities) {
        const declared = typeof value === 'function' ? value(version) : value;
        if (declared !== undefined) capabilities[name] = declared;
      }
      const extensions: Record<string, unknown> = {};
      for (const [name, value] of this.extensions) {
        const declared = typeof value === 'function' ? value(version) : value;
        if (declared !== undefined) extensions[name] = declared;
      }
      // `extensions` is a 2026-07-28 capability: earlier versions never see it.
      if (features.era === 'modern' && Object.keys(extensions).length > 0) capabilities.extensions = extensions;
      result = { protocolVersion: version, capabilities, serverInfo };
      if (instructions !== undefined) result.instructions = instructions;
      this.initializeResults.set(version, result);
    }
    return result;
  }

  private applyPlugin({ middlewares, routes, notifications, capabilities, extensions, clientFeatures, closeHooks, authentication, cluster }: PluginAdditions): void {
    if (cluster) {
      this.link = new ClusterLink(cluster, (change) => this.applyRemoteChange(change), (what, error) => this.reportError(what, error));
      this.taskRunner.attachCluster({ broadcaster: cluster.broadcaster, replicaId: this.link.replicaId, store: cluster.tasks });
    }
    if (authentication) {
      this.auth = authentication;
      this.access.requireAuthentication();
    }
    if (middlewares.length > 0) this.dispatcher.use(middlewares);
    for (const [method, handler] of routes) this.dispatcher.route(method, handler);
    for (const [method, handler] of notifications) this.dispatcher.onNotification(method, handler);
    Object.assign(this.clientFeatures, clientFeatures);
    for (const [name, value] of capabilities) this.capabilities.set(name, value);
    for (const [name, value] of extensions) this.extensions.set(name, value);
    this.closeHooks.push(...closeHooks);
    this.initializeResults.clear();
  }

  private checkCompletion(
    definition: CompletionDefinition,
    provider: Constructor,
    newPrompts: ReadonlySet<string>,
    newTemplates: ReadonlySet<string>,
  ): void {
    const { options } = definition;
    const where = `${provider.name}.${definition.methodName}`;
    const target =
      'prompt' in options
        ? this.promptRegistry.has(options.prompt) || newPrompts.has(options.prompt)
        : this.templateRegistry.has(options.resource) || newTemplates.has(options.resource);
    if (!target) {
      const what = 'prompt' in options ? `prompt "${options.prompt}"` : `resource template "${options.resource}"`;
      throw new DefinitionError('INVALID_OPTION', `${where}: @Completion refers to ${what}, which is not registered (register its provider first)`);
    }
    if (this.completions.has(completionKey(options))) {
      throw new DefinitionError('DUPLICATE_NAME', `${where}: argument "${options.argument}" already has a @Completion`);
    }
  }

  private onListChange(registry: Registry<unknown>, notification: string): void {
    registry.onChange(() => {
      this.initializeResults.clear();
      // Fixed resources and templates share one notification: send it once per tick.
      if (this.pendingListChanges.size === 0) process.nextTick(() => this.flushListChanges());
      this.pendingListChanges.add(notification);
    });
  }

  private flushListChanges(): void {
    const notifications = [...this.pendingListChanges];
    this.pendingListChanges.clear();
    for (const method of notifications) {
      this.changes.listChanged(method);
      this.link?.publish({ kind: 'list', method });
    }
  }

  /** A change or log on another replica of the cluster, for this replica's clients. */
  private applyRemoteChange(change: ClusterChange): void {
    if (change.kind === 'list') this.changes.listChanged(change.method);
    else if (change.kind === 'resource') this.changes.resourceUpdated(change.uri);
    else if (isLoggingLevel(change.level)) this.logToSessions(change.level, change.data, change.logger);
  }

  private logToSessions(level: LoggingLevel, data: unknown, logger: string | undefined): void {
    for (const connection of this.readyConnections()) connection.log(connection.session, level, data, logger);
  }

  /**
   * Handshake-era sessions hear of changes only to lists they were told about at initialize,
   * and of updates only to the resources they subscribed to.
   */
  private notifySessions(method: string, params: Record<string, unknown>): void {
    if (method === 'notifications/resources/updated') {
      for (const connection of this.readyConnections()) {
        if (connection.session.subscriptions.has(params.uri as string)) connection.notify(method, params);
      }
      return;
    }
    const kind = method.split('/')[1];
    for (const connection of this.readyConnections()) {
      if (connection.declaredCapabilities[kind]) connection.notify(method);
    }
  }

  private notifySubscribers(uri: string): void {
    this.changes.resourceUpdated(uri);
    this.link?.publish({ kind: 'resource', uri });
  }

  private *readyConnections(): Iterable<Connection> {
    for (const connection of this.connections) if (connection.session.state === 'ready') yield connection;
  }

  private closeOnSignals(): void {
    if (this.removeSignalHandlers) return;
    const onSignal = () => void this.close().finally(() => process.exit(0));
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    this.removeSignalHandlers = () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      this.removeSignalHandlers = undefined;
    };
  }

  private reportError(what: string, error: unknown): void {
    if (this.options.onError) return this.options.onError(what, error);
    const detail = error instanceof Error ? (this.debug ? error.stack : error.message) : String(error);
    process.stderr.write(`[${this.options.name}] ${what}: ${detail}\n`);
  }
}

function listControl<T>(registry: Registry<T>): ListControl {
  return {
    enable: (key) => registry.enable(key),
    disable: (key) => registry.disable(key),
    remove: (key) => registry.remove(key),
    has: (key) => registry.get(key) !== undefined,
    names: () => registry.listed().map((e) => keyOf(e.item)),
  };
}

/** Fixed resources by uri and templates by their template text, as one list. */
function resourceListControl(fixed: Registry<RegisteredResource>, templates: Registry<RegisteredResource>): ListControl {
  const either = (key: string) => (templates.has(key) ? templates : fixed);
  return {
    enable: (key) => either(key).enable(key),
    disable: (key) => either(key).disable(key),
    remove: (key) => either(key).remove(key),
    has: (key) => either(key).get(key) !== undefined,
    names: () => [...fixed.list(), ...templates.list()].map((r) => r.key),
  };
}

function keyOf(item: unknown): string {
  return (item as { name: string }).name;
}

/** How the server serves requests without a handshake (2026-07-28), from its options. */
function modernSettings(options: McpServerOptions): ModernSettings {
  const secret = options.requestState?.secret;
  const ttlMs = positiveInteger(options.requestState?.ttlMs, 10 * 60_000, 'requestState.ttlMs');
  if (secret !== undefined && !((typeof secret === 'string' || secret instanceof Uint8Array) && secret.length >= 16)) {
    throw new DefinitionError('INVALID_OPTION', 'McpServer: requestState.secret must be a string or bytes of at least 16 characters');
  }
  const hints = new Map<string, CacheHint>();
  for (const [method, hint] of Object.entries(DEFAULT_CACHE_HINTS)) {
    const chosen = { ...hint, ...options.cacheHints?.[method as CacheableMethod] };
    if (!(Number.isInteger(chosen.ttlMs) && chosen.ttlMs >= 0) || !['public', 'private'].includes(chosen.cacheScope)) {
      throw new DefinitionError('INVALID_OPTION', `McpServer: cacheHints["${method}"] needs an integer ttlMs >= 0 and a cacheScope of "public" or "private"`);
    }
    hints.set(method, chosen);
  }
  const serverInfo: Record<string, unknown> = { name: options.name, version: options.version };
  if (options.title !== undefined) serverInfo.title = options.title;
  return {
    serverInfo: serverInfo as ModernSettings['serverInfo'],
    requestStateKey: { secret: secret === undefined ? randomBytes(32) : typeof secret === 'string' ? Buffer.from(secret) : secret, ttlMs },
    cacheHint: (method) => hints.get(method),
  };
}

function positiveInteger(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!(Number.isInteger(value) && value > 0)) throw new DefinitionError('INVALID_OPTION', `McpServer: ${name} must be a positive integer, not ${String(value)}`);
  return value;
}
