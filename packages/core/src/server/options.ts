import type { ServerCardOptions } from '../features/serverCard';
import type { ToolSearchOptions } from '../features/toolSearch';
import type { DependencyContainer } from 'tsyringe';
import type { CacheableMethod, CacheHint } from '../eras';
import type { Constructor, Icon, IconFile } from '../metadata';
import type { Principal } from '../protocol';
import type { LoggingLevel } from '../session';
import type { TaskOptions } from '../tasks';
import type { HttpHandlerOptions, StdioTransportOptions } from '../transports';

export type { CacheableMethod } from '../eras';

/** The options of `new McpServer(…)`: who the server is, what it serves, and how it behaves. */
export interface McpServerOptions {
  /** `serverInfo.name`. */
  name: string;
  /** `serverInfo.version`. */
  version: string;
  title?: string;
  description?: string;
  websiteUrl?: string;
  /** URLs (`https:`, `data:`), or files (`{ file: './icon.png' }`) sent as data URIs: see IconFile. */
  icons?: Array<Icon | IconFile>;
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
   * Tool search, for servers with very many tools: clients list a search tool and a call tool
   * (plus `pinned` tools) instead of every tool; a search ranks the tools the caller may use,
   * the call tool runs one through the whole `tools/call` path. Not in the protocol yet: an
   * option of this server. See the composition guide.
   */
  toolSearch?: ToolSearchOptions | true;
  /**
   * A server card (SEP-2127, a draft): every HTTP handler answers `GET <endpoint>/server-card`
   * with the server's identity and endpoint, from these options, and with `catalog`
   * `/.well-known/ai-catalog.json`. Needs a reverse-DNS `name` and a `description`. Off by
   * default while the proposal is a draft. See the publishing guide.
   */
  serverCard?: ServerCardOptions | boolean;
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
  /**
   * The environment variables the server reads, declared for those who install it: `typemcp
   * registry init` lists them in `server.json`. Checked here (names, types, no duplicates);
   * nothing else reads them, and the server's own code still reads `process.env`.
   */
  environment?: EnvironmentVariable[];
}

/** An environment variable a server reads (`McpServerOptions.environment`), as `server.json` describes it. */
export interface EnvironmentVariable {
  /** The variable's name: letters, digits and `_`, not starting with a digit. */
  name: string;
  /** What it sets, for the person configuring the server. */
  description?: string;
  /** The server cannot start without it. Default false. */
  isRequired?: boolean;
  /** A password, token or key: clients keep it out of sight. Default false. */
  isSecret?: boolean;
  /** The value the server uses when it is unset. */
  default?: string;
}

/**
 * A server's identity as its options declare it, what `typemcp registry init` hears while it
 * loads an application (`collectServers` of `@typemcp/core/build`).
 */
export type ServerDeclaration = Pick<McpServerOptions, 'name' | 'version' | 'title' | 'description' | 'websiteUrl' | 'icons' | 'environment'>;

/** `server.listen({ transport: 'stdio' })`: serve one client over the process's stdin and stdout. */
export interface StdioListenOptions extends StdioTransportOptions {
  transport: 'stdio';
  /** Close cleanly on SIGINT and SIGTERM and exit the process; default true. */
  handleSignals?: boolean;
  /**
   * The caller of the connection (stdio carries no credentials): `ctx.principal`, and what the
   * access rules check. Default: the authentication's `localPrincipal`. `TYPEMCP_STDIO_PRINCIPAL`
   * (set by `typemcp --principal`) comes first.
   */
  principal?: Principal;
}

/** `server.listen({ transport: 'http' })`: serve Streamable HTTP on a node:http server of its own. */
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

/** The options of `server.listen()`: stdio or HTTP. */
export type ListenOptions = StdioListenOptions | HttpListenOptions;

/** Where an HTTP listener is reachable. */
export interface ListenAddress {
  host: string;
  port: number;
  /** The endpoint URL, e.g. `http://127.0.0.1:3000/mcp`. */
  url: string;
}

/** The options of `server.connect(transport)`, which serves one connection on a transport of your own. */
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

/** `server.tools`: turns tools on and off, or removes them, by name, while the server runs. */
export type ToolsControl = ListControl;
/** `server.prompts`: turns prompts on and off, or removes them, by name, while the server runs. */
export type PromptsControl = ListControl;

/**
 * `server.resources`: resources and templates by uri, as `ListControl`, and the updates their
 * subscribers hear.
 */
export interface ResourcesControl extends ListControl {
  /** Sends `notifications/resources/updated` to the sessions subscribed to `uri`. */
  notifyUpdated(uri: string): void;
}

