import { DefinitionError } from '../errors';
import type { DefinitionErrorCode } from '../errors';
import type { EraName, HttpStage, Revision } from '../protocol';
import type { JsonSchema } from '../schema';
import type { RequestScope } from '../session';
import type { Context } from './Context';
import type { Interceptor, InvocationTarget, Middleware } from './middleware';
import type { ServerObserver } from './observers';

/** A request handler a plugin adds: params in, result object out. */
export type PluginRequestHandler = (params: Record<string, unknown>, ctx: Context) => Record<string, unknown> | Promise<Record<string, unknown>>;

/** A client-notification handler a plugin adds: params and the scope of the client that sent it; nothing is answered. */
export type PluginNotificationHandler = (params: Record<string, unknown>, scope: RequestScope) => void | Promise<void>;

/** A server capability: a fixed value, or one per protocol version (undefined leaves it out). */
export type CapabilityValue = Record<string, unknown> | ((protocolVersion: string) => Record<string, unknown> | undefined);

/**
 * A service the server takes from one plugin: how it authenticates its callers
 * (`AuthenticationService`), the cluster it is a replica of (`ClusterService`), … The key
 * names the service and checks what is provided; what the server does with it is the
 * service's own contract. Each service is provided by one plugin per server.
 */
export interface ServiceKey<T> {
  /** Names the service in messages. */
  readonly name: string;
  /** Checks a provided value, throwing a TypeError or DefinitionError that names what to fix. */
  check(value: unknown): asserts value is T;
}

/** The item a request names, as `host.itemOf` finds it. */
export interface ServedItem {
  readonly kind: 'tool' | 'prompt' | 'resource';
  /** The tool or prompt name, or the resource uri, as the request gave it. */
  readonly name: string;
  /**
   * The author code behind it (whose decorators a plugin may read); for a resource read through
   * a template, `target.name` is the template.
   */
  readonly target: InvocationTarget;
  /** A tool's arguments as listed (JSON Schema 2020-12): `writeOnly` marks the ones `@Sensitive` keeps out of logs. */
  readonly inputSchema?: JsonSchema;
}

/** What a plugin may do to the server it is added to. */
export interface PluginHost {
  /** The server's `serverInfo` name and version. */
  readonly serverInfo: { readonly name: string; readonly version: string };
  /** Middleware around every routed request, after those already added. */
  use(...middlewares: Middleware[]): void;
  /**
   * Interceptors around every routed request, after those already added and outside every
   * middleware: `next()` answers as the handler does (a value when it is synchronous), so a
   * request stays synchronous through them. For guards on hot paths; see `Interceptor`.
   */
  intercept(...interceptors: Interceptor[]): void;
  /** Handles a request method; a method that already has a handler is refused. */
  route(method: string, handler: PluginRequestHandler): void;
  /** Handles a client notification; one that already has a handler is refused. */
  onNotification(method: string, handler: PluginNotificationHandler): void;
  /** Declares a server capability in the `initialize` result; a name already declared is refused. */
  capability(name: string, value: CapabilityValue): void;
  /**
   * Advertises one extension under `capabilities.extensions[name]` with these settings, to
   * clients of every protocol version (a value per protocol version may leave it out). Extensions of several
   * plugins are merged; a name already advertised is refused. `capability('extensions', …)` is refused: use this.
   */
  extension(name: string, settings: CapabilityValue): void;
  /**
   * Provides a service to the server (one per server: a second provider is refused). The key
   * checks the value; the server may refuse it too, inside this call, so the plugin can undo
   * what it opened for it.
   */
  provide<T>(service: ServiceKey<T>, value: T): void;
  /**
   * Hears the life of the server: every request as it arrives and how it ended (the result, a
   * tool error, or the JSON-RPC error its era sent), connections and SSE streams opening and
   * closing. Observers hear in the order added; one that throws is reported.
   */
  observe(observer: ServerObserver): void;
  /** Runs when the server closes, after its connections are closed; hooks run in registration order. */
  onClose(hook: () => void | Promise<void>): void;
  /**
   * Adds a readiness check: whether this replica can serve now as far as the plugin knows
   * (its store answers). `server.readiness()` and an HTTP `readinessPath` report every check;
   * the replica is ready when all pass. The check must answer at once, from what the plugin
   * already knows. A name already checked is refused.
   */
  readiness(name: string, check: () => boolean): void;
  /**
   * Adds a stage to the server's HTTP handlers (`httpHandler()`, `fetchHandler()`, `listen`),
   * just before or just after a named stage: the core's (`authenticate`, …) or one a plugin
   * added before. A stage answers a request (a reply) or passes it on (undefined), and may set
   * the request's principal. An unknown stage, or a name already taken, is refused.
   */
  httpStage(stage: HttpStage): void;
  /**
   * The scopes the server's tools, resources, resource templates and prompts need at this
   * moment (`@Scopes`, and the access rules of mounted and remote items), each once, tools'
   * first: what an authorization server offers its clients.
   */
  declaredScopes(): string[];
  /**
   * The item a request names, found as the server would serve it now: a `tools/call`'s tool, a
   * `prompts/get`'s prompt, a `resources/read`'s resource or template; undefined for another
   * method or a name nothing here serves. For middleware that applies per item.
   */
  itemOf(method: string, params: Readonly<Record<string, unknown>>): ServedItem | undefined;
  /** Reports an error as the server does (its `onError`, or stderr). */
  reportError(what: string, error: unknown): void;
}

/** A bundle of routes, capabilities and middleware added with `server.plugin(plugin, options)`. */
export interface Plugin<Options = void> {
  readonly name: string;
  readonly version?: string;
  /** Names of plugins that must be added before this one. */
  readonly dependencies?: readonly string[];
  register(host: PluginHost, options: Options): void;
}

/** A capability of a built-in feature: per revision, which says what its messages can carry. */
export type CoreCapabilityValue = Record<string, unknown> | ((protocolVersion: string, revision: Revision) => Record<string, unknown> | undefined);

/** The host the built-in features get: a plugin's, with routes that exist in some eras only and capabilities per revision. */
export interface CorePluginHost extends Omit<PluginHost, 'capability' | 'extension'> {
  route(method: string, handler: PluginRequestHandler, eras?: readonly EraName[]): void;
  capability(name: string, value: CoreCapabilityValue): void;
  extension(name: string, settings: CoreCapabilityValue): void;
}

/** A built-in feature: a plugin on the same seam, with the core host. */
export interface CorePlugin {
  readonly name: string;
  readonly dependencies?: readonly string[];
  register(host: CorePluginHost): void;
}

/** What registering a plugin adds, applied only when its `register` returns without throwing. */
export interface PluginAdditions {
  middlewares: Middleware[];
  interceptors: Interceptor[];
  routes: Array<[string, PluginRequestHandler, readonly EraName[] | undefined]>;
  notifications: Array<[string, PluginNotificationHandler]>;
  capabilities: Array<[string, CoreCapabilityValue]>;
  extensions: Array<[string, CoreCapabilityValue]>;
  services: Map<ServiceKey<unknown>, unknown>;
  observers: ServerObserver[];
  closeHooks: Array<() => void | Promise<void>>;
  readinessChecks: Map<string, () => boolean>;
  httpStages: HttpStage[];
}

/** Where a server applies what plugins add. */
export interface PluginTarget {
  readonly serverInfo: { readonly name: string; readonly version: string };
  /** Why a method cannot get a handler, or undefined when it can (see Dispatcher.refusal). */
  routeRefusal(method: string, kind: 'request' | 'notification'): { code: DefinitionErrorCode; message: string } | undefined;
  hasCapability(name: string): boolean;
  hasReadinessCheck(name: string): boolean;
  /** Why an HTTP stage cannot be placed (among the server's and those `added` with it), or undefined when it can. */
  httpStageRefusal(stage: HttpStage, added: readonly HttpStage[]): { code: DefinitionErrorCode; message: string } | undefined;
  hasExtension(name: string): boolean;
  /** The scopes the server's targets need now. */
  declaredScopes(): string[];
  /** The item a request names (see PluginHost.itemOf). */
  itemOf(method: string, params: Readonly<Record<string, unknown>>): ServedItem | undefined;
  /** True when a plugin already provided this service. */
  hasService(service: ServiceKey<unknown>): boolean;
  /** Why the server cannot take this service, or undefined when it can. */
  serviceRefusal(service: ServiceKey<unknown>, value: unknown): string | undefined;
  apply(additions: PluginAdditions): void;
  reportError(what: string, error: unknown): void;
}

/** Checks and runs plugin registrations: all or nothing per plugin. */
export class PluginRegistry {
  private readonly registered = new Map<string, string | undefined>();

  constructor(private readonly target: PluginTarget) {}

  get names(): string[] {
    return [...this.registered.keys()];
  }

  add<Options>(plugin: Plugin<Options>, options: Options): void {
    if (typeof plugin !== 'object' || plugin === null || typeof plugin.name !== 'string' || plugin.name === '' || typeof plugin.register !== 'function') {
      throw new DefinitionError('INVALID_OPTION', 'McpServer.plugin: a plugin is an object with a non-empty string "name" and a "register(host, options)" function');
    }
    this.checkName(plugin);
    const additions = emptyAdditions();
    plugin.register(this.hostFor(plugin.name, additions), options);
    this.commit(plugin, additions);
  }

  /** Adds a built-in feature: the same checks and all-or-nothing rule, with the core host. */
  addCore(plugin: CorePlugin): void {
    this.checkName(plugin);
    const additions = emptyAdditions();
    plugin.register(this.hostFor(plugin.name, additions));
    this.commit(plugin, additions);
  }

  private checkName(plugin: { name: string; dependencies?: readonly string[] }): void {
    const { name } = plugin;
    if (this.registered.has(name)) throw new DefinitionError('DUPLICATE_NAME', `McpServer.plugin: a plugin named "${name}" is already added`);
    const missing = (plugin.dependencies ?? []).filter((dependency) => !this.registered.has(dependency));
    if (missing.length > 0) {
      throw new DefinitionError(
        'PLUGIN_DEPENDENCY_MISSING',
        `McpServer.plugin: "${name}" needs ${missing.map((m) => `"${m}"`).join(', ')} added before it (added so far: ${this.names.join(', ') || 'none'})`,
      );
    }
  }

  private commit(plugin: { name: string; version?: string }, additions: PluginAdditions): void {
    this.target.apply(additions);
    this.registered.set(plugin.name, plugin.version);
  }

  private hostFor(name: string, additions: PluginAdditions): CorePluginHost & PluginHost {
    const where = `plugin "${name}"`;
    const checkRoute = (method: unknown, handler: unknown, kind: 'request' | 'notification', call: string) => {
      if (typeof method !== 'string' || method === '' || typeof handler !== 'function') throw new TypeError(`${where}: ${call}(method, handler) needs a method name and a function`);
      const added = kind === 'request' ? additions.routes : additions.notifications;
      const refused =
        this.target.routeRefusal(method, kind) ??
        (added.some(([m]) => m === method) ? { code: 'DUPLICATE_NAME' as DefinitionErrorCode, message: `the ${kind === 'request' ? 'method' : 'notification'} "${method}" already has a handler` } : undefined);
      if (refused) throw new DefinitionError(refused.code, `${where}: ${refused.message}`);
    };
    return {
      serverInfo: this.target.serverInfo,
      use: (...middlewares) => {
        middlewares.forEach((m, i) => {
          if (typeof m !== 'function') throw new TypeError(`${where}: middleware #${i} is not a function`);
        });
        additions.middlewares.push(...middlewares);
      },
      intercept: (...interceptors) => {
        interceptors.forEach((m, i) => {
          if (typeof m !== 'function') throw new TypeError(`${where}: interceptor #${i} is not a function`);
        });
        additions.interceptors.push(...interceptors);
      },
      route: (method: string, handler: PluginRequestHandler, eras?: readonly EraName[]) => {
        checkRoute(method, handler, 'request', 'route');
        additions.routes.push([method, handler, eras]);
      },
      onNotification: (method, handler) => {
        checkRoute(method, handler, 'notification', 'onNotification');
        additions.notifications.push([method, handler]);
      },
      capability: (capability: string, value: CoreCapabilityValue) => {
        if (capability === 'extensions') throw new DefinitionError('INVALID_OPTION', `${where}: declare each extension with extension(name, settings), not capability("extensions", …)`);
        if (this.target.hasCapability(capability) || additions.capabilities.some(([c]) => c === capability)) {
          throw new DefinitionError('DUPLICATE_NAME', `${where}: the capability "${capability}" is already declared`);
        }
        additions.capabilities.push([capability, value]);
      },
      extension: (extension, settings) => {
        if (typeof extension !== 'string' || extension === '') throw new TypeError(`${where}: extension(name, settings) needs a non-empty name`);
        if (this.target.hasExtension(extension) || additions.extensions.some(([e]) => e === extension)) {
          throw new DefinitionError('DUPLICATE_NAME', `${where}: the extension "${extension}" is already advertised`);
        }
        additions.extensions.push([extension, settings]);
      },
      provide: <T>(service: ServiceKey<T>, value: T) => {
        if (typeof service !== 'object' || service === null || typeof service.name !== 'string' || typeof service.check !== 'function') {
          throw new TypeError(`${where}: provide(service, value) needs a service key: an object with a name and check(value), as exported where the service is defined`);
        }
        const key: ServiceKey<T> = service;
        key.check(value);
        if (this.target.hasService(service) || additions.services.has(service)) {
          throw new DefinitionError('DUPLICATE_NAME', `${where}: the ${service.name} service is already provided; add one plugin that provides it`);
        }
        // Refused here, inside register(), so the plugin can undo what it opened.
        const refused = this.target.serviceRefusal(service, value);
        if (refused) throw new DefinitionError('INVALID_OPTION', `${where}: ${refused}`);
        additions.services.set(service, value);
      },
      observe: (observer) => {
        if (typeof observer !== 'object' || observer === null) throw new TypeError(`${where}: observe(observer) needs an object of optional functions (request, connectionOpened, …)`);
        additions.observers.push(observer);
      },
      onClose: (hook) => void additions.closeHooks.push(hook),
      readiness: (name, check) => {
        if (typeof name !== 'string' || name === '' || typeof check !== 'function') throw new TypeError(`${where}: readiness(name, check) needs a name and a function that answers true or false`);
        if (additions.readinessChecks.has(name) || this.target.hasReadinessCheck(name)) throw new DefinitionError('INVALID_OPTION', `${where}: the readiness check "${name}" is already added`);
        additions.readinessChecks.set(name, check);
      },
      httpStage: (stage) => {
        if (typeof stage !== 'object' || stage === null || typeof stage.name !== 'string' || stage.name === '' || typeof stage.handle !== 'function') {
          throw new TypeError(`${where}: httpStage(stage) needs an object with a non-empty name, handle(request), and before or after naming a stage`);
        }
        const refused = this.target.httpStageRefusal(stage, additions.httpStages);
        if (refused) throw new DefinitionError(refused.code, `${where}: ${refused.message}`);
        additions.httpStages.push(stage);
      },
      declaredScopes: () => this.target.declaredScopes(),
      itemOf: (method, params) => this.target.itemOf(method, params),
      reportError: (what, error) => this.target.reportError(`${where}: ${what}`, error),
    };
  }
}

function emptyAdditions(): PluginAdditions {
  return { middlewares: [], interceptors: [], routes: [], notifications: [], capabilities: [], extensions: [], services: new Map(), observers: [], closeHooks: [], readinessChecks: new Map(), httpStages: [] };
}
