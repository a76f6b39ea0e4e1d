import 'reflect-metadata';
import { container as rootContainer } from 'tsyringe';
import type { DependencyContainer } from 'tsyringe';
import { ProviderResolver } from '../di';
import { metadataStore } from '../metadata';
import type { Constructor, Icon } from '../metadata';
import { featuresOf } from '../protocol';
import type { RequestId } from '../protocol';
import type { Session } from '../session';
import { StdioTransport } from '../transports';
import type { StdioTransportOptions, Transport } from '../transports';
import { toolHandlers } from '../features/tools';
import { buildTool } from './buildTool';
import type { RegisteredTool } from './buildTool';
import { Connection } from './Connection';
import type { ConnectionHost } from './Connection';
import { Context } from './Context';
import type { FeatureHost, MethodHandler } from './FeatureHost';
import { Registry } from './Registry';

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
}

export interface StdioListenOptions extends StdioTransportOptions {
  transport: 'stdio';
  /** Close cleanly on SIGINT and SIGTERM and exit the process; default true. */
  handleSignals?: boolean;
}

export type ListenOptions = StdioListenOptions;

/** Run-time control over the registered tools. Every change emits `list_changed`. */
export interface ToolsControl {
  enable(name: string): boolean;
  disable(name: string): boolean;
  remove(name: string): boolean;
  has(name: string): boolean;
  /** Names of the enabled tools, in listing order. */
  names(): string[];
}

/**
 * An MCP server assembled from decorated provider classes. Construction builds every tool
 * (schemas, validators) and fails fast on declaration mistakes; `listen` or `connect`
 * serves it.
 */
export class McpServer {
  readonly tools: ToolsControl;
  private readonly toolRegistry = new Registry<RegisteredTool>('tool');
  private readonly resolver: ProviderResolver;
  private readonly container: DependencyContainer;
  private readonly connections = new Set<Connection>();
  private readonly handlers = new Map<string, MethodHandler>();
  private readonly initializeResults = new Map<string, Record<string, unknown>>();
  private readonly connectionHost: ConnectionHost;

  constructor(private readonly options: McpServerOptions) {
    this.container = options.container ?? rootContainer;
    this.resolver = new ProviderResolver(this.container, Context);
    for (const provider of options.providers ?? []) this.register(provider);

    const registry = this.toolRegistry;
    this.tools = {
      enable: (name) => registry.enable(name),
      disable: (name) => registry.disable(name),
      remove: (name) => registry.remove(name),
      has: (name) => registry.get(name) !== undefined,
      names: () => registry.list().map((tool) => tool.name),
    };
    registry.onChange(() => {
      this.initializeResults.clear();
      this.broadcast('notifications/tools/list_changed');
    });

    const featureHost: FeatureHost = {
      tools: registry,
      debug: this.debug,
      resolveProvider: (provider, ctx) => this.resolver.resolve(provider, () => ctx.container),
      reportError: (what, error) => this.reportError(what, error),
    };
    this.handlers.set('ping', () => ({}));
    for (const [method, handler] of Object.entries(toolHandlers(featureHost))) this.handlers.set(method, handler);

    this.connectionHost = {
      handlers: this.handlers,
      debug: this.debug,
      requestTimeoutMs: options.requestTimeoutMs ?? 60_000,
      initializeResult: (version) => this.initializeResult(version),
      createContext: (requestId, method, session) => this.createContext(requestId, method, session),
      reportError: (what, error) => this.reportError(what, error),
      onConnectionClosed: (connection) => this.connections.delete(connection),
    };
  }

  get debug(): boolean {
    return this.options.debug ?? false;
  }

  /** Adds a provider class (and its tools) at run time; clients hear `list_changed`. */
  register(provider: Constructor): void {
    this.resolver.register(provider);
    for (const definition of metadataStore.toolsOf(provider)) {
      const tool = buildTool(definition, provider);
      this.toolRegistry.add(tool.name, tool, `${provider.name}.${definition.methodName}`);
    }
  }

  /** Serves one client over the given transport; resolves once the transport has started. */
  async connect(transport: Transport): Promise<Session> {
    const connection = new Connection(this.connectionHost, transport);
    this.connections.add(connection);
    await connection.start();
    return connection.session;
  }

  /**
   * Serves over stdio. Resolves once listening; the process ends when stdin closes (after
   * in-flight requests finish) or on SIGINT/SIGTERM.
   */
  async listen(options: ListenOptions): Promise<void> {
    if (options.transport !== 'stdio') throw new Error(`Unknown transport "${(options as { transport: string }).transport}"`);
    const transport = new StdioTransport(options);
    await this.connect(transport);
    if (options.handleSignals ?? true) this.closeOnSignals();
  }

  /** Closes every connection; in-flight requests are cancelled. */
  async close(): Promise<void> {
    await Promise.all([...this.connections].map((connection) => connection.close()));
  }

  /** Live handshake-era sessions. */
  get sessions(): Session[] {
    return [...this.connections].map((connection) => connection.session);
  }

  private createContext(requestId: RequestId, method: string, session: Session): Context {
    return new Context({ requestId, method, scope: session, container: this.container });
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
      if (this.toolRegistry.size > 0) capabilities.tools = { listChanged: true };
      result = { protocolVersion: version, capabilities, serverInfo };
      if (instructions !== undefined) result.instructions = instructions;
      this.initializeResults.set(version, result);
    }
    return result;
  }

  private broadcast(method: string): void {
    for (const connection of this.connections) {
      if (connection.session.state === 'ready') connection.notify(method);
    }
  }

  private closeOnSignals(): void {
    const onSignal = () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      void this.close().finally(() => process.exit(0));
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  }

  private reportError(what: string, error: unknown): void {
    if (this.options.onError) return this.options.onError(what, error);
    const detail = error instanceof Error ? (this.debug ? error.stack : error.message) : String(error);
    process.stderr.write(`[${this.options.name}] ${what}: ${detail}\n`);
  }
}
