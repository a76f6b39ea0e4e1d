import { DefinitionError } from '../errors';
import type { Context } from './Context';
import type { Middleware } from './middleware';

/** A request handler a plugin adds: params in, result object out. */
export type PluginRequestHandler = (params: Record<string, unknown>, ctx: Context) => Record<string, unknown> | Promise<Record<string, unknown>>;

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
  /** Declares a server capability in the `initialize` result; a name already declared is refused. */
  capability(name: string, value: CapabilityValue): void;
  /** Runs when the server closes, after its connections are closed; hooks run in registration order. */
  onClose(hook: () => void | Promise<void>): void;
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

/** What registering a plugin adds, applied only when its `register` returns without throwing. */
export interface PluginAdditions {
  middlewares: Middleware[];
  routes: Array<[string, PluginRequestHandler]>;
  capabilities: Array<[string, CapabilityValue]>;
  closeHooks: Array<() => void | Promise<void>>;
}

/** Where a server applies what plugins add. */
export interface PluginTarget {
  readonly serverInfo: { readonly name: string; readonly version: string };
  hasRoute(method: string): boolean;
  hasCapability(name: string): boolean;
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
    const { name } = plugin;
    if (this.registered.has(name)) throw new DefinitionError('DUPLICATE_NAME', `McpServer.plugin: a plugin named "${name}" is already added`);
    const missing = (plugin.dependencies ?? []).filter((dependency) => !this.registered.has(dependency));
    if (missing.length > 0) {
      throw new DefinitionError(
        'PLUGIN_DEPENDENCY_MISSING',
        `McpServer.plugin: "${name}" needs ${missing.map((m) => `"${m}"`).join(', ')} added before it (added so far: ${this.names.join(', ') || 'none'})`,
      );
    }
    const additions: PluginAdditions = { middlewares: [], routes: [], capabilities: [], closeHooks: [] };
    const where = `plugin "${name}"`;
    const host: PluginHost = {
      serverInfo: this.target.serverInfo,
      use: (...middlewares) => {
        middlewares.forEach((m, i) => {
          if (typeof m !== 'function') throw new TypeError(`${where}: middleware #${i} is not a function`);
        });
        additions.middlewares.push(...middlewares);
      },
      route: (method, handler) => {
        if (typeof method !== 'string' || method === '' || typeof handler !== 'function') throw new TypeError(`${where}: route(method, handler) needs a method name and a function`);
        if (this.target.hasRoute(method) || additions.routes.some(([m]) => m === method)) {
          throw new DefinitionError('DUPLICATE_NAME', `${where}: the method "${method}" already has a handler`);
        }
        additions.routes.push([method, handler]);
      },
      capability: (capability, value) => {
        if (this.target.hasCapability(capability) || additions.capabilities.some(([c]) => c === capability)) {
          throw new DefinitionError('DUPLICATE_NAME', `${where}: the capability "${capability}" is already declared`);
        }
        additions.capabilities.push([capability, value]);
      },
      onClose: (hook) => void additions.closeHooks.push(hook),
      reportError: (what, error) => this.target.reportError(`${where}: ${what}`, error),
    };
    plugin.register(host, options);
    this.target.apply(additions);
    this.registered.set(name, plugin.version);
  }
}
