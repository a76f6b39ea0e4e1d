import { DefinitionError } from '../errors';
import type { DefinitionErrorCode } from '../errors';
import type { Authentication } from '../access';
import type { ClusterOptions } from '../cluster';
import type { RequestScope } from '../session';
import type { ClientFeatures, Context } from './Context';
import type { Middleware } from './middleware';

/** A request handler a plugin adds: params in, result object out. */
export type PluginRequestHandler = (params: Record<string, unknown>, ctx: Context) => Record<string, unknown> | Promise<Record<string, unknown>>;

/** A client-notification handler a plugin adds: params and the scope of the client that sent it; nothing is answered. */
export type PluginNotificationHandler = (params: Record<string, unknown>, scope: RequestScope) => void | Promise<void>;

/** A server capability: a fixed value, or one per protocol version (undefined leaves it out). */
export type CapabilityValue = Record<string, unknown> | ((protocolVersion: string) => Record<string, unknown> | undefined);

/** What a plugin may do to the server it is added to. */
export interface PluginHost {
  /** The server's `serverInfo` name and version. */
  readonly serverInfo: { readonly name: string; readonly version: string };
  /** Middleware around every routed request, after those already added. */
  use(...middlewares: Middleware[]): void;
  /** Handles a request method; a method that already has a handler is refused. */
  route(method: string, handler: PluginRequestHandler): void;
  /** Handles a client notification; one that already has a handler is refused. */
  onNotification(method: string, handler: PluginNotificationHandler): void;
  /** Declares a server capability in the `initialize` result; a name already declared is refused. */
  capability(name: string, value: CapabilityValue): void;
  /**
   * Advertises one extension under `capabilities.extensions[name]` with these settings, to
   * 2026-07-28 clients only (a value per protocol version may leave it out). Extensions of several plugins are
   * merged; a name already advertised is refused. `capability('extensions', …)` is refused: use this.
   */
  extension(name: string, settings: CapabilityValue): void;
  /** Runs when the server closes, after its connections are closed; hooks run in registration order. */
  onClose(hook: () => void | Promise<void>): void;
  /** Reports an error as the server does (its `onError`, or stderr). */
  reportError(what: string, error: unknown): void;
  /**
   * Makes the server authenticate its callers this way (one per server): HTTP requests are
   * answered 401 without credentials it accepts, and every target not marked `@Public()`
   * needs an authenticated caller.
   */
  authentication(authentication: Authentication): void;
  /**
   * Makes the server one replica of a cluster (one per server): sessions, SSE events, change
   * notifications and client answers are shared through these stores, so any replica behind a
   * load balancer serves any request.
   */
  cluster(options: ClusterOptions): void;
}

/** A bundle of routes, capabilities and middleware added with `server.plugin(plugin, options)`. */
export interface Plugin<Options = void> {
  readonly name: string;
  readonly version?: string;
  /** Names of plugins that must be added before this one. */
  readonly dependencies?: readonly string[];
  register(host: PluginHost, options: Options): void;
}

/** The host the built-in features get: a plugin's, plus the client features behind `ctx.sample/elicit/roots`. */
export interface CorePluginHost extends PluginHost {
  provide<Feature extends keyof ClientFeatures>(feature: Feature, implementation: ClientFeatures[Feature]): void;
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
  routes: Array<[string, PluginRequestHandler]>;
  notifications: Array<[string, PluginNotificationHandler]>;
  capabilities: Array<[string, CapabilityValue]>;
  extensions: Array<[string, CapabilityValue]>;
  clientFeatures: Partial<ClientFeatures>;
  closeHooks: Array<() => void | Promise<void>>;
  authentication?: Authentication;
  cluster?: ClusterOptions;
}

/** Where a server applies what plugins add. */
export interface PluginTarget {
  readonly serverInfo: { readonly name: string; readonly version: string };
  /** Why a method cannot get a handler, or undefined when it can (see Dispatcher.refusal). */
  routeRefusal(method: string, kind: 'request' | 'notification'): { code: DefinitionErrorCode; message: string } | undefined;
  hasCapability(name: string): boolean;
  hasExtension(name: string): boolean;
  hasClientFeature(feature: keyof ClientFeatures): boolean;
  hasAuthentication(): boolean;
  hasCluster(): boolean;
  /** Why the server cannot join a cluster, or undefined when it can. */
  clusterRefusal(): string | undefined;
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
    const host: CorePluginHost = {
      ...this.hostFor(plugin.name, additions),
      provide: (feature, implementation) => {
        if (this.target.hasClientFeature(feature) || additions.clientFeatures[feature] !== undefined) {
          throw new DefinitionError('DUPLICATE_NAME', `plugin "${plugin.name}": the client feature "${feature}" is already provided`);
        }
        additions.clientFeatures[feature] = implementation;
      },
    };
    plugin.register(host);
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

  private hostFor(name: string, additions: PluginAdditions): PluginHost {
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
      route: (method, handler) => {
        checkRoute(method, handler, 'request', 'route');
        additions.routes.push([method, handler]);
      },
      onNotification: (method, handler) => {
        checkRoute(method, handler, 'notification', 'onNotification');
        additions.notifications.push([method, handler]);
      },
      capability: (capability, value) => {
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
      onClose: (hook) => void additions.closeHooks.push(hook),
      reportError: (what, error) => this.target.reportError(`${where}: ${what}`, error),
      authentication: (authentication) => {
        if (typeof authentication !== 'object' || authentication === null || typeof authentication.authenticate !== 'function' || typeof authentication.challenge !== 'function') {
          throw new TypeError(`${where}: authentication(…) needs an object with authenticate(req) and challenge(challenge) functions`);
        }
        if (this.target.hasAuthentication() || additions.authentication !== undefined) {
          throw new DefinitionError('DUPLICATE_NAME', `${where}: the server already has an authentication; add one authentication plugin`);
        }
        additions.authentication = authentication;
      },
      cluster: (cluster) => {
        const parts = ['sessions', 'events', 'broadcaster'] as const;
        if (typeof cluster !== 'object' || cluster === null || parts.some((part) => typeof cluster[part] !== 'object' || cluster[part] === null)) {
          throw new TypeError(`${where}: cluster(…) needs an object with sessions, events and broadcaster`);
        }
        if (cluster.replicaId !== undefined && !/^[A-Za-z0-9_-]{1,64}$/.test(cluster.replicaId)) {
          throw new DefinitionError('INVALID_OPTION', `${where}: replicaId must be 1 to 64 letters, digits, "_" or "-", not ${JSON.stringify(cluster.replicaId)}`);
        }
        if (this.target.hasCluster() || additions.cluster !== undefined) {
          throw new DefinitionError('DUPLICATE_NAME', `${where}: the server is already part of a cluster; add one cluster plugin`);
        }
        // Refused here, inside register(), so the plugin can undo what it opened.
        const refused = this.target.clusterRefusal();
        if (refused) throw new DefinitionError('INVALID_OPTION', `${where}: ${refused}`);
        additions.cluster = cluster;
      },
    };
  }
}

function emptyAdditions(): PluginAdditions {
  return { middlewares: [], routes: [], notifications: [], capabilities: [], extensions: [], clientFeatures: {}, closeHooks: [] };
}
