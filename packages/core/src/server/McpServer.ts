import type { SessionRecord } from '../cluster';
import { transformTool } from '../composition';
import type { MountOptions, RemoteCatalog, RemoteItems, ToolTransform } from '../composition';
import type { Constructor } from '../metadata';
import type { Transport } from '../protocol';
import type { Logger } from '../runtime/Logger';
import type { Middleware } from '../runtime/middleware';
import type { Plugin } from '../runtime/plugins';
import type { Registry } from '../runtime/Registry';
import type { Session } from '../session';
import type { SkillFolderOptions } from '../skills';
import type { FetchHandler, FetchHandlerOptions, HttpHandlerOptions, NodeHttpHandler, Readiness } from '../transports';
import { SERVER_COLLECTOR_KEY } from '../constants';
import { DefinitionError } from '../errors';
import { nodeHost } from './host';
import type { ConnectOptions, HttpListenOptions, ListControl, ListenAddress, ListenOptions, McpServerOptions, PromptsControl, ResourcesControl, ServerDeclaration, StdioListenOptions, ToolsControl } from './options';
import { ServerRuntime } from './ServerRuntime';
import { redescribe } from './settings';
import type { IdentityUpdate } from './settings';

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
  /** @internal What serves the server: its catalog, its sessions, the dispatcher and the plugins. */
  readonly runtime: ServerRuntime;

  constructor(options: McpServerOptions) {
    const runtime = (this.runtime = new ServerRuntime(options));
    this.tools = listControl(runtime.catalog.tools);
    this.prompts = listControl(runtime.catalog.prompts);
    this.resources = { ...resourceListControl(runtime.catalog.resources, runtime.catalog.templates), notifyUpdated: (uri) => runtime.catalog.notifyUpdated(uri) };
    this.log = runtime.sessions.log;
    // Heard only while `typemcp registry init` loads the application.
    const { name, version, title, description, websiteUrl, icons, environment } = options;
    (globalThis as { [SERVER_COLLECTOR_KEY]?: ServerDeclaration[] })[SERVER_COLLECTOR_KEY]?.push({ name, version, title, description, websiteUrl, icons, environment });
  }

  /**
   * Adds middleware around every request the server routes (all methods but the `initialize`
   * handshake), outermost first, in the order added. Returns the server, so calls chain.
   */
  use(...middlewares: Middleware[]): this {
    this.runtime.dispatcher.use(middlewares);
    return this;
  }

  /**
   * Changes the title and the instructions clients are told from the next `initialize` or
   * `server/discover` on (a field given as undefined is dropped, one left out is kept): for a
   * server that learns them after it was made, as a proxy learns its upstream's.
   */
  describeAs(update: IdentityUpdate): this {
    redescribe(this.runtime, update);
    return this;
  }

  /**
   * Adds a plugin: its routes, capabilities, services, middleware and close hooks. Checked
   * here: a duplicate name, a dependency not added before, a route, capability or service
   * already taken, or a server already serving fail with a DefinitionError and add nothing.
   * Returns the server.
   */
  plugin<Options>(plugin: Plugin<Options>, options?: Options): this {
    this.runtime.plugin(plugin, options as Options);
    return this;
  }

  get debug(): boolean {
    return this.runtime.debug;
  }

  /**
   * Adds a provider class (its tools, resources, prompts and completions), at startup or at
   * run time; clients hear `list_changed`. Fails with a DefinitionError on declaration mistakes.
   */
  register(provider: Constructor): void {
    this.runtime.register(provider);
  }

  /**
   * Shows another server's tools, prompts, resources, templates and completions here under a
   * namespace (`<namespace>_<tool>`, `docs://<namespace>/…`), now and as they change: clients
   * hear list_changed. `source` is a server, or provider classes to build one from (in this
   * server's container). A request for a mounted item runs this server's middleware, then the
   * mounted server's middleware, access rules and handler. Fails with a DefinitionError, adding
   * nothing, on a name this server has (`DUPLICATE_NAME`, unless `onCollision: 'skip'`), a name
   * the `names` rule refuses, or a cycle. Returns the mount: `unmount()` takes it out again.
   */
  mount(source: McpServer | readonly Constructor[], options: MountOptions): MountedServer {
    const child = Array.isArray(source)
      ? new McpServer({ name: options?.namespace ?? 'mounted', version: '0.0.0', providers: source as Constructor[], container: this.runtime.container })
      : (source as McpServer);
    if (!(child instanceof McpServer)) throw new DefinitionError('INVALID_OPTION', 'server.mount: source must be an McpServer or an array of provider classes');
    const mount = this.runtime.catalog.mount(child.runtime.catalog, options);
    return { namespace: mount.namespace, server: child, unmount: () => mount.detach() };
  }

  /**
   * Adds a tool made from the tool `name` (this server's own, or a mounted one): a new name,
   * description and title, arguments renamed, described, hidden or defaulted (a default may be
   * computed from the request's Context), and `wrap` around the call. Clients see, and are
   * validated against, the new schema; the tool's own validation still checks what reaches it.
   * Under a new name the original is hidden unless `keepOriginal`. Returns the server.
   */
  transformTool(name: string, transform: ToolTransform): this {
    transformTool(this.runtime, this.runtime.catalog.tools, name, transform, (newName, where) => this.runtime.catalog.checkToolName(newName, where));
    return this;
  }

  /**
   * Shows tools, prompts, resources and templates that something else answers for (a proxied
   * server, an HTTP API), listed as given and checked by this server's access rules and
   * middleware; each request runs the item's function. Fails with a DefinitionError, adding
   * nothing, on a name the server has. Returns the catalog: `update(items)` swaps what changed
   * (clients hear list_changed), `remove()` takes them all out.
   */
  remote(items: RemoteItems): RemoteCatalog {
    return this.runtime.catalog.remote(items);
  }

  /**
   * Serves a folder of Agent Skills over the Skills extension: every directory below it with a
   * `SKILL.md` is a skill at `skill://<its path>/SKILL.md`, each file a resource. Read here: a
   * malformed `SKILL.md`, a name that is not its directory's, a skill over the limits or a link
   * out of the folder throws a DefinitionError naming the file. `watch: true` serves changes
   * as they happen. Returns the server.
   */
  skills(folder: string, options: SkillFolderOptions = {}): this {
    this.runtime.serveSkills(folder, options, nodeHost('server.skills(folder)').skillFolders);
    return this;
  }

  /** Serves one client over the given transport; resolves once the transport has started. */
  connect(transport: Transport, options: ConnectOptions & { restore?: SessionRecord } = {}): Promise<Session> {
    return this.runtime.connect(transport, options);
  }

  /**
   * Serves over stdio (resolves once listening; the process ends when stdin closes, after
   * in-flight requests finish) or over HTTP on 127.0.0.1 by default (resolves with the
   * address). Both close cleanly on SIGINT/SIGTERM unless `handleSignals: false`.
   */
  async listen(options: StdioListenOptions): Promise<void>;
  async listen(options: HttpListenOptions): Promise<ListenAddress>;
  async listen(options: ListenOptions): Promise<void | ListenAddress> {
    const host = nodeHost('server.listen()');
    if (options.transport === 'http') return host.listenHttp(this.runtime, options);
    return host.listenStdio(this.runtime, options);
  }

  /**
   * A Node `(req, res)` handler serving Streamable HTTP (and, unless turned off, the legacy
   * HTTP+SSE transport) for mounting in node:http, Express, Fastify or any Node server.
   */
  httpHandler(options: HttpHandlerOptions = {}): NodeHttpHandler {
    const { nodeHandler } = nodeHost('server.httpHandler()');
    return this.runtime.addHttpHandler((runtime) => nodeHandler(runtime, options));
  }

  /**
   * A Fetch API handler, `(request: Request) => Promise<Response>`, serving the same Streamable
   * HTTP on any runtime with `Request` and `Response`: `export default { fetch: handler }` on
   * Cloudflare Workers, `Bun.serve({ fetch: handler })`, `Deno.serve(handler)`, Hono's
   * `(c) => handler(c.req.raw)`. Further arguments are ignored.
   */
  fetchHandler(options: FetchHandlerOptions = {}): FetchHandler {
    return this.runtime.fetchHandler(options);
  }

  /**
   * Stops serving: HTTP listeners stop accepting, in-flight HTTP requests may finish (a few
   * seconds at most), then every connection closes and in-flight requests are cancelled.
   */
  close(): Promise<void> {
    return this.runtime.close();
  }

  /**
   * Whether this replica can serve now: `ready` is false while the server closes or a
   * plugin's readiness check fails (`@typemcp/redis`: Redis does not answer), with each check
   * by name. For a route of your own; `readinessPath` serves it over HTTP.
   */
  readiness(): Readiness {
    return this.runtime.readiness();
  }

  /** Live handshake-era sessions. */
  get sessions(): Session[] {
    return this.runtime.sessions.live;
  }
}

/** A server mounted in another (`server.mount`). */
export interface MountedServer {
  readonly namespace: string;
  /** The mounted server: register, enable or disable its items and the parent follows. */
  readonly server: McpServer;
  /** Takes the mounted server's items out of the parent; its clients hear list_changed. */
  unmount(): void;
}

function listControl<T>(registry: Registry<T>): ListControl {
  return {
    enable: (key) => registry.enable(key),
    disable: (key) => registry.disable(key),
    remove: (key) => registry.remove(key),
    has: (key) => registry.get(key) !== undefined,
    names: () => registry.listed().map((e) => (e.item as { name: string }).name),
  };
}

/** Fixed resources by uri and templates by their template text, as one list. */
function resourceListControl(fixed: Registry<{ key: string }>, templates: Registry<{ key: string }>): ListControl {
  const either = (key: string) => (templates.has(key) ? templates : fixed);
  return {
    enable: (key) => either(key).enable(key),
    disable: (key) => either(key).disable(key),
    remove: (key) => either(key).remove(key),
    has: (key) => either(key).get(key) !== undefined,
    names: () => [...fixed.list(), ...templates.list()].map((r) => r.key),
  };
}
