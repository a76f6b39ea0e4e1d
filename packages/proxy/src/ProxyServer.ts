import { DefinitionError, McpError, McpServer, ToolError } from '@typemcp/core';
import type { Context, LoggingLevel, McpServerOptions, RemoteCatalog } from '@typemcp/core';
import type { ClientChannel } from './client/channel';
import { HttpChannel } from './client/http';
import type { HeaderMap } from './client/http';
import { StdioChannel } from './client/stdio';
import type { StdioUpstream } from './client/stdio';
import { UpstreamError, UpstreamGoneError } from './client/UpstreamSession';
import type { UpstreamSession } from './client/UpstreamSession';
import { mirrorIdentity } from './identity';
import { LIST_CHANGED, LISTS, listAll, remoteItems } from './mirror';
import { printable } from './printable';
import type { ListKind } from './mirror';
import { LEVELS, relay } from './relay';
import { Upstream } from './Upstream';
import type { ReconnectOptions, UpstreamState } from './Upstream';

/** An upstream reached over Streamable HTTP. */
export interface HttpUpstream {
  url: string | URL;
  /**
   * The headers of each upstream request, from the request being relayed (`undefined` for the
   * proxy's own: discovery, the handshake, lists). The client's own headers, `Authorization`
   * among them, never reach the upstream unless this returns them.
   */
  headers?: (ctx: Context | undefined) => HeaderMap | Promise<HeaderMap>;
  /** Default: the global `fetch`. */
  fetch?: typeof fetch;
  /**
   * The largest answer the proxy reads, in bytes (after any decompression): a JSON body, or one
   * event of an SSE stream. A longer one is not read on: its request fails with -32603 saying
   * so, and the proxy serves on. Default 64 MiB.
   */
  maxMessageBytes?: number;
}

/**
 * The options of `new ProxyServer(…)`: the upstream it fronts and how it speaks to it, with
 * the server options of the proxy itself.
 */
export interface ProxyOptions extends Omit<McpServerOptions, 'name' | 'version' | 'providers'> {
  /** The proxy's own name and version, as its clients see them. Default `proxy`, `0.0.0`. */
  name?: string;
  version?: string;
  /** The server to front: a command speaking MCP on stdio, or an HTTP endpoint. */
  upstream: StdioUpstream | HttpUpstream;
  /** The revision spoken to the upstream: `auto` (default) takes 2026-07-28 where it is served, else the newest handshake revision. */
  upstreamProtocolVersion?: string;
  reconnect?: ReconnectOptions;
  /** How long one relayed request may wait for the upstream. Default 5 minutes. */
  upstreamTimeoutMs?: number;
  /** Most pages of one upstream list followed before giving up on it. Default 1000. */
  maxPages?: number;
  /**
   * The level the proxy asks a handshake-era upstream for (`logging/setLevel`). Each client
   * still gets what its own level lets through. Default `debug`: every message reaches the
   * clients that want it; a higher level saves traffic.
   */
  upstreamLogLevel?: LoggingLevel;
  /**
   * Where an upstream log message goes that names no request: over stdio every one (nothing on
   * a pipe says which request a message is about), over HTTP those of the handshake era's GET
   * stream. `operator` (default): to `onError`, never to a client, as one client's messages
   * must not reach another. `broadcast`: to every session, as the server's own log, when every
   * client may read all the upstream logs. A message on a request's own stream (HTTP) reaches
   * that request's client either way.
   */
  upstreamLogs?: 'operator' | 'broadcast';
}

const UPSTREAM_LOGS = ['operator', 'broadcast'];

const LIST_TIMEOUT_MS = 30_000;
const LISTEN_RETRY_MS = 1000;
const LISTEN_MAX_RETRY_MS = 30_000;
/** A listen stream that lasted this long was not refused: the next wait starts short again. */
const LISTEN_STABLE_MS = 5000;
/** Most mirrored resources whose updates the proxy asks the upstream for. */
const MAX_WATCHED = 1000;
/** What the proxy can relay from the upstream to its clients. */
const RELAYED_CAPABILITIES = { sampling: {}, elicitation: { form: {}, url: {} }, roots: { listChanged: true } };

/**
 * A server that fronts another MCP server: it mirrors the upstream's tools, prompts, resources
 * and templates (every page, as they change) and forwards each request, with its progress,
 * cancellation, log messages (those its HTTP response stream carries) and the upstream's
 * questions to the client. It serves, and is mounted, like any McpServer; `start()` connects
 * it. Both sides speak either era.
 */
export class ProxyServer extends McpServer {
  private readonly catalog: RemoteCatalog;
  private readonly upstream: Upstream;
  private readonly lists: Partial<Record<ListKind, Record<string, unknown>[]>> = {};
  private readonly stale = new Set<ListKind>();
  private syncing: Promise<void> | undefined;
  /** The resources each session has the upstream watch (handshake: subscribed; 2026-07-28: on its listen stream). */
  private readonly watching = new WeakMap<UpstreamSession, Set<string>>();
  /** Opens the 2026-07-28 listen stream again (with the resources to watch now). */
  private restartListen: (() => void) | undefined;
  private readonly callTimeoutMs: number;
  private readonly maxPages: number;
  private readonly upstreamLogs: 'operator' | 'broadcast';
  private reporter: ((what: string, error: unknown) => void) | undefined;
  private readonly callerHeaders: ((ctx: Context | undefined) => HeaderMap | Promise<HeaderMap>) | undefined;
  /** What the proxy's own options say of it: not replaced by the upstream's. */
  private readonly ownIdentity: { title: boolean; instructions: boolean };

  constructor(options: ProxyOptions) {
    const { upstream, upstreamProtocolVersion, reconnect, upstreamTimeoutMs, maxPages, upstreamLogLevel, upstreamLogs, name, version, ...serverOptions } = options;
    if (upstreamLogs !== undefined && !UPSTREAM_LOGS.includes(upstreamLogs)) {
      throw new DefinitionError('INVALID_OPTION', `ProxyServer: upstreamLogs must be 'operator' or 'broadcast', not ${JSON.stringify(upstreamLogs)}`);
    }
    super({ ...serverOptions, name: name ?? 'proxy', version: version ?? '0.0.0' });
    this.upstreamLogs = upstreamLogs ?? 'operator';
    this.ownIdentity = { title: serverOptions.title !== undefined, instructions: serverOptions.instructions !== undefined };
    this.catalog = this.remote({});
    // Reports go where the server's own do; however the server closes (close(), the end of stdin), the upstream goes with it.
    this.plugin({
      name: 'typemcp:proxy',
      register: (host) => {
        this.reporter = (what, error) => host.reportError(what, error);
        host.onClose(() => this.upstream.close());
      },
    });
    this.callTimeoutMs = upstreamTimeoutMs ?? 300_000;
    this.maxPages = maxPages ?? 1000;
    this.callerHeaders = 'url' in upstream ? upstream.headers : undefined;
    const channel = channelFor(upstream, (what, detail) => this.report(what, detail));
    this.upstream = new Upstream(
      channel,
      {
        protocolVersion: upstreamProtocolVersion ?? 'auto',
        clientInfo: { name: name ?? 'proxy', version: version ?? '0.0.0' },
        capabilities: RELAYED_CAPABILITIES,
        timeoutMs: LIST_TIMEOUT_MS,
      },
      { initialDelayMs: reconnect?.initialDelayMs ?? 100, maxDelayMs: reconnect?.maxDelayMs ?? 10_000 },
      {
        connected: (session) => this.connected(session, upstreamLogLevel ?? 'debug'),
        lost: (error) => this.report('the upstream went away; reconnecting', error),
        report: (what, error) => this.report(what, error),
      },
    );
  }

  /**
   * Connects to the upstream and mirrors its lists; resolves once that is done the first time
   * (after as many attempts as it takes: an upstream that is down at start is retried with
   * backoff). From then on the proxy reconnects by itself whenever the upstream goes away.
   */
  start(): Promise<void> {
    return this.upstream.start();
  }

  /** Where the connection to the upstream stands. */
  get upstreamState(): UpstreamState {
    return this.upstream.state;
  }

  private async connected(session: UpstreamSession, logLevel: LoggingLevel): Promise<void> {
    session.onNotification = (method, params) => this.heard(method, params);
    session.onUnownedLog = (params, named) => this.unownedLog(params, named);
    // A handshake-era upstream asks outside any request only for roots: none are shared through a proxy.
    session.onRequest = async (method) => {
      if (method === 'roots/list') return { roots: [] };
      throw Object.assign(new Error(`${method} is relayed only while a request of a client runs`), { code: -32601 });
    };
    // The upstream's title and instructions are the proxy's, for clients that connect from now on.
    const info = session.serverInfo as { title?: unknown };
    mirrorIdentity(this, { title: typeof info.title === 'string' ? info.title : undefined, instructions: session.instructions }, this.ownIdentity);
    if (!session.modern && session.serverCapabilities.logging) await session.request('logging/setLevel', { level: logLevel }).catch(() => undefined);
    for (const kind of Object.keys(LISTS) as ListKind[]) this.stale.add(kind);
    await this.sync(session);
    if (session.modern) void this.listenForChanges(session);
  }

  /**
   * 2026-07-28: the upstream tells of list changes, and of updates to the mirrored resources,
   * on a `subscriptions/listen` stream, opened again while the session lives (at once when the
   * resources to watch changed; after a growing wait when it ended by itself); its
   * notifications reach `heard` as the session's own.
   */
  private async listenForChanges(session: UpstreamSession): Promise<void> {
    const capabilities = session.serverCapabilities as Record<string, { listChanged?: boolean; subscribe?: boolean } | undefined>;
    let wait = LISTEN_RETRY_MS;
    while (session.alive && this.upstream.state !== 'closed') {
      const wanted: Record<string, unknown> = {};
      if (capabilities.tools?.listChanged) wanted.toolsListChanged = true;
      if (capabilities.prompts?.listChanged) wanted.promptsListChanged = true;
      if (capabilities.resources?.listChanged) wanted.resourcesListChanged = true;
      const watched = capabilities.resources?.subscribe ? this.watchedUris() : [];
      if (watched.length > 0) wanted.resourceSubscriptions = watched;
      if (Object.keys(wanted).length === 0) return;
      const opened = Date.now();
      let restarted = false;
      const outcome = await session
        .request('subscriptions/listen', { notifications: wanted }, { timeoutMs: 2 ** 31 - 1, background: true, cancelWith: (cancel) => (this.restartListen = () => ((restarted = true), cancel('the resources to watch changed'))) })
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      this.restartListen = undefined;
      if (!session.alive) return;
      if (restarted) continue;
      if (outcome instanceof UpstreamError && outcome.code === -32601) return this.report('the upstream does not serve subscriptions/listen: its changes are not heard', outcome);
      wait = Date.now() - opened > LISTEN_STABLE_MS ? LISTEN_RETRY_MS : Math.min(wait * 2, LISTEN_MAX_RETRY_MS);
      await new Promise((resolve) => setTimeout(resolve, wait));
      // Changes made while no stream was open are caught up with.
      for (const kind of Object.keys(LISTS) as ListKind[]) this.stale.add(kind);
      void this.sync(session);
    }
  }

  /** The mirrored resources whose updates the proxy asks the upstream for (the first MAX_WATCHED). */
  private watchedUris(): string[] {
    return (this.lists.resources ?? []).slice(0, MAX_WATCHED).map((resource) => resource.uri as string);
  }

  /**
   * Keeps the upstream watching the mirrored resources for the proxy's subscribers: a
   * handshake-era upstream with `resources/subscribe` and `unsubscribe`, a 2026-07-28 one by
   * opening its listen stream again with the new list.
   */
  private async watch(session: UpstreamSession): Promise<void> {
    if (!(session.serverCapabilities.resources as { subscribe?: boolean } | undefined)?.subscribe) return;
    const wanted = new Set(this.watchedUris());
    const watching = this.watching.get(session) ?? new Set<string>();
    this.watching.set(session, wanted);
    const same = wanted.size === watching.size && [...wanted].every((uri) => watching.has(uri));
    if (same) return;
    if (session.modern) return void this.restartListen?.();
    const changes = [...[...wanted].filter((uri) => !watching.has(uri)).map((uri) => ['resources/subscribe', uri]), ...[...watching].filter((uri) => !wanted.has(uri)).map((uri) => ['resources/unsubscribe', uri])];
    await Promise.all(changes.map(([method, uri]) => session.request(method, { uri }).catch((error: unknown) => this.report(`the upstream refused ${method} of ${uri}`, error))));
  }

  /** What the upstream tells outside requests: list changes, resource updates. */
  private heard(method: string, params: Record<string, unknown>): void {
    const kinds = LIST_CHANGED[method];
    if (kinds) {
      for (const kind of kinds) this.stale.add(kind);
      const session = this.currentSession();
      if (session) void this.sync(session);
      return;
    }
    if (method === 'notifications/resources/updated' && typeof params.uri === 'string') return this.resources.notifyUpdated(params.uri);
  }

  /**
   * An upstream log message no request of a client takes. One that names no request goes to
   * every session only when the author chose `broadcast`; the rest (one of a request that is
   * over, of the proxy's own requests, or that nothing names) is the operator's.
   */
  private unownedLog(params: Record<string, unknown>, named: boolean): void {
    if (typeof params.level !== 'string' || !LEVELS.has(params.level)) return;
    const level = params.level as LoggingLevel;
    const logger = typeof params.logger === 'string' ? params.logger : undefined;
    if (!named && this.upstreamLogs === 'broadcast') return this.log[level](params.data, logger);
    this.report(`the upstream logged (${level}${logger === undefined ? '' : `, ${printable(JSON.stringify(logger))}`}) about no request a client is waiting for`, printable(params.data));
  }

  /** Lists again what is stale, one sync at a time; what goes stale meanwhile is listed right after. */
  private sync(session: UpstreamSession): Promise<void> {
    if (this.syncing) return this.syncing;
    this.syncing = (async () => {
      try {
        while (this.stale.size > 0 && session.alive) {
          const kinds = [...this.stale];
          this.stale.clear();
          await Promise.all(
            kinds.map(async (kind) => {
              if (!session.serverCapabilities[LISTS[kind].capability]) return void (this.lists[kind] = []);
              try {
                this.lists[kind] = await listAll(session, kind, this.maxPages, LIST_TIMEOUT_MS);
              } catch (error) {
                // What was mirrored before stays; the next change lists it again.
                this.report(`the upstream's ${LISTS[kind].method} failed`, error);
              }
            }),
          );
          void this.watch(session);
          this.catalog.update(remoteItems(this.lists, { forward: (method, params, ctx, paramHeaders) => this.forward(method, params, ctx, paramHeaders), completes: session.serverCapabilities.completions !== undefined }));
        }
      } finally {
        this.syncing = undefined;
      }
    })();
    return this.syncing;
  }

  private report(what: string, error: unknown): void {
    if (this.reporter) this.reporter(what, error);
    else console.error(`proxy: ${what}:`, error);
  }

  private currentSession(): UpstreamSession | undefined {
    try {
      return this.upstream.current();
    } catch {
      return undefined;
    }
  }

  /** One request of a client, relayed; a tool call the upstream could not finish is a tool error the model can act on. */
  private async forward(method: string, params: Record<string, unknown>, ctx: Context, paramHeaders?: Record<string, string>): Promise<Record<string, unknown>> {
    try {
      const session = this.upstream.current();
      const headers = this.callerHeaders ? await this.callerHeaders(ctx) : undefined;
      return await relay({ session, headers, paramHeaders, timeoutMs: this.callTimeoutMs }, method, params, ctx);
    } catch (error) {
      if (!(error instanceof UpstreamGoneError)) throw error;
      const gone = `The upstream server is unavailable: ${error.message}`;
      throw method === 'tools/call' ? new ToolError(gone) : new McpError(-32603, gone);
    }
  }
}

function channelFor(upstream: StdioUpstream | HttpUpstream, report: (what: string, detail: unknown) => void): () => ClientChannel {
  if ('url' in upstream) {
    const url = new URL(upstream.url);
    const fetcher = upstream.fetch ?? fetch;
    const headers = upstream.headers;
    const { maxMessageBytes } = upstream;
    if (maxMessageBytes !== undefined && !(Number.isSafeInteger(maxMessageBytes) && maxMessageBytes > 0)) {
      throw new DefinitionError('INVALID_OPTION', `ProxyServer: upstream.maxMessageBytes must be a positive integer, not ${String(maxMessageBytes)}`);
    }
    // The proxy's own requests (the handshake, lists, the GET stream) carry what headers(undefined) gives.
    const own = headers ? async () => (await headers(undefined)) ?? {} : undefined;
    return () => new HttpChannel({ url, fetch: fetcher, headers: own, maxMessageBytes, report });
  }
  if (typeof upstream?.command !== 'string') throw new TypeError('ProxyServer: upstream needs a command (stdio) or a url (HTTP)');
  return () => new StdioChannel(upstream);
}
