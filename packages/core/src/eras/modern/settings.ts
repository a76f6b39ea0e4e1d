import { DefinitionError } from '../../errors';
import type { Icon } from '../../metadata';
import type { RequestStateKey } from './requestState';

/** `ttlMs` and `cacheScope` of a cacheable 2026-07-28 result. */
export interface CacheHint {
  ttlMs: number;
  cacheScope: 'public' | 'private';
}

/** The methods whose 2026-07-28 results carry caching hints. */
export type CacheableMethod = 'server/discover' | 'tools/list' | 'prompts/list' | 'resources/list' | 'resources/templates/list' | 'resources/read' | 'skills/list' | 'skills/get' | 'resources/directory/read';

const DEFAULT_CACHE_HINTS: Record<CacheableMethod, CacheHint> = {
  'server/discover': { ttlMs: 0, cacheScope: 'public' },
  'tools/list': { ttlMs: 0, cacheScope: 'public' },
  'prompts/list': { ttlMs: 0, cacheScope: 'public' },
  'resources/list': { ttlMs: 0, cacheScope: 'public' },
  'resources/templates/list': { ttlMs: 0, cacheScope: 'public' },
  'resources/read': { ttlMs: 0, cacheScope: 'private' },
  'skills/list': { ttlMs: 0, cacheScope: 'public' },
  'skills/get': { ttlMs: 0, cacheScope: 'public' },
  'resources/directory/read': { ttlMs: 0, cacheScope: 'public' },
};

/** What the server sets for requests without a handshake. */
export interface ModernSettings {
  /** `_meta["io.modelcontextprotocol/serverInfo"]` of every result but `server/discover`'s: the server's identity without its icons. */
  readonly serverInfo: ServerInfo;
  /** `_meta["io.modelcontextprotocol/serverInfo"]` of `server/discover`: with the icons, which may be data URIs too large for every result. */
  readonly discoverInfo: ServerInfo;
  readonly requestStateKey: RequestStateKey;
  /** The caching hint of a method's results, for the methods whose results are cacheable. */
  cacheHint(method: string): CacheHint | undefined;
}

/** The `Implementation` a 2026-07-28 result names its server with. */
export interface ServerInfo {
  readonly name: string;
  readonly version: string;
  readonly title?: string;
  readonly description?: string;
  readonly websiteUrl?: string;
  readonly icons?: Icon[];
}

/** The server options these settings come from. */
export interface ModernOptions {
  name: string;
  version: string;
  title?: string;
  description?: string;
  websiteUrl?: string;
  /** With files already read (data URIs). */
  icons?: Icon[];
  cacheHints?: Partial<Record<CacheableMethod, Partial<CacheHint>>>;
  requestState?: { secret?: string | Uint8Array; ttlMs?: number };
}

/** How the server serves requests without a handshake (2026-07-28), from its options; checks them. */
export function modernSettings(options: ModernOptions): ModernSettings {
  const secret = options.requestState?.secret;
  const ttlMs = options.requestState?.ttlMs ?? 10 * 60_000;
  if (!(Number.isInteger(ttlMs) && ttlMs > 0)) {
    throw new DefinitionError('INVALID_OPTION', `McpServer: requestState.ttlMs must be a positive integer, not ${String(options.requestState?.ttlMs)}`);
  }
  if (secret !== undefined && !((typeof secret === 'string' || secret instanceof Uint8Array) && secret.length >= 16)) {
    throw new DefinitionError('INVALID_OPTION', 'McpServer: requestState.secret must be a string or bytes of at least 16 characters');
  }
  if (secret === undefined && onCloudflareWorkers()) {
    // An isolate's random secret dies with it, and the next isolate refuses every state it sealed.
    throw new DefinitionError(
      'INVALID_OPTION',
      "McpServer: on Cloudflare Workers give requestState.secret from the Worker's env, the same for every isolate: " +
        'new McpServer({ ..., requestState: { secret: env.MCP_REQUEST_STATE_SECRET } }), set with `npx wrangler secret put MCP_REQUEST_STATE_SECRET` (.dev.vars locally)',
    );
  }
  const hints = new Map<string, CacheHint>();
  for (const [method, hint] of Object.entries(DEFAULT_CACHE_HINTS)) {
    const chosen = { ...hint, ...options.cacheHints?.[method as CacheableMethod] };
    if (!(Number.isInteger(chosen.ttlMs) && chosen.ttlMs >= 0) || !['public', 'private'].includes(chosen.cacheScope)) {
      throw new DefinitionError('INVALID_OPTION', `McpServer: cacheHints["${method}"] needs an integer ttlMs >= 0 and a cacheScope of "public" or "private"`);
    }
    hints.set(method, chosen);
  }
  const serverInfo: { -readonly [K in keyof ServerInfo]: ServerInfo[K] } = { name: options.name, version: options.version };
  if (options.title !== undefined) serverInfo.title = options.title;
  if (options.description !== undefined) serverInfo.description = options.description;
  if (options.websiteUrl !== undefined) serverInfo.websiteUrl = options.websiteUrl;
  const discoverInfo: ServerInfo = options.icons === undefined ? serverInfo : { ...serverInfo, icons: options.icons };
  // Without a secret, a random one is made when first needed: a constructor must not ask for random values (Workers).
  let key: RequestStateKey | undefined;
  return {
    serverInfo,
    discoverInfo,
    get requestStateKey() {
      return (key ??= {
        secret: secret === undefined ? crypto.getRandomValues(new Uint8Array(32)) : typeof secret === 'string' ? new TextEncoder().encode(secret) : secret,
        ttlMs,
      });
    },
    cacheHint: (method) => hints.get(method),
  };
}

/** Cloudflare's documented way to tell its runtime: `navigator.userAgent` is "Cloudflare-Workers". */
function onCloudflareWorkers(): boolean {
  return (globalThis as { navigator?: { userAgent?: unknown } }).navigator?.userAgent === 'Cloudflare-Workers';
}
