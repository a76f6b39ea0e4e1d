import { servedVersions } from '../eras';
import type { ServerDescription } from '../eras';
import { DefinitionError } from '../errors';
import type { Icon } from '../metadata';
import type { HttpStageReply, HttpStageRequest } from '../protocol';
import { sha256Base64url } from '../platform';
import type { CorePlugin } from '../runtime/plugins';

/** The media type of a server card (SEP-2127). */
export const SERVER_CARD_TYPE = 'application/mcp-server-card+json';
/** The media type of an AI Catalog. */
export const AI_CATALOG_TYPE = 'application/ai-catalog+json';
/** The card's `$schema`: the one URL the v1 schema accepts. */
export const SERVER_CARD_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json';
const CARD_SUFFIX = '/server-card';
const CATALOG_PATH = '/.well-known/ai-catalog.json';

/** An input of a remote: a header's value or a URL variable (the card schema's `Input`). */
export interface ServerCardInput {
  description?: string;
  isRequired?: boolean;
  isSecret?: boolean;
  format?: 'string' | 'number' | 'boolean' | 'filepath';
  default?: string;
  placeholder?: string;
  choices?: string[];
  value?: string;
}

/** An endpoint a client may connect to (the card schema's `Remote`). */
export interface ServerCardRemote {
  type: 'streamable-http' | 'sse';
  /** `http(s)://…`, or starting with a `{variable}`; variables come from `variables`. */
  url: string;
  headers?: Array<ServerCardInput & { name: string; variables?: Record<string, ServerCardInput> }>;
  variables?: Record<string, ServerCardInput>;
  /** Default: the versions `server/discover` names. */
  supportedProtocolVersions?: string[];
}

/** An entry of an AI Catalog: a server card by `url`, or inline as `data`. */
export interface AiCatalogEntry {
  /** `urn:air:{publisher}:{namespace}:{name}`, e.g. `urn:air:example.com:mcp:weather`. */
  identifier: string;
  /** Default `application/mcp-server-card+json`. */
  type?: string;
  url?: string;
  data?: Record<string, unknown>;
}

/**
 * The server card (SEP-2127, a draft): `GET <endpoint>/server-card` answers a document of the
 * server's identity and endpoints, made from the server's own options so it agrees with what
 * `initialize` and `server/discover` say.
 */
export interface ServerCardOptions {
  /**
   * The public URL of the MCP endpoint (`https://mcp.example.com/mcp`), for the card's remote
   * and the catalog's entry. Default: the URL the card was asked at, less `/server-card`
   * (over Node `http://` and the Host header: give this behind TLS or a proxy).
   */
  url?: string;
  /** The endpoints the card lists, instead of the one at `url`. */
  remotes?: ServerCardRemote[];
  /** Where the source is (`{ source: 'github', url }`). */
  repository?: { source: string; url: string; subfolder?: string; id?: string };
  /** The card's `_meta`, namespaced vendor data. */
  _meta?: Record<string, unknown>;
  /** `Cache-Control: public, max-age=<this>` in seconds; default 3600. */
  maxAgeSeconds?: number;
  /**
   * Also answer `GET /.well-known/ai-catalog.json` with an AI Catalog listing this server
   * (first) and `others`: the other servers the same host serves. Default off.
   */
  catalog?: boolean | { identifier?: string; others?: AiCatalogEntry[] };
}

const NAME = /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/;
const REMOTE_URL = /^(https?:\/\/[^\s]+|\{[a-zA-Z_][a-zA-Z0-9_]*\}[^\s]*)$/;
const VERSION_RANGE = /^[\^~<>=]|\*|(^|\.)x(\.|$)/i;

/** The card and catalog of one server, checked when the server is made so every answer validates. */
export class ServerCard {
  readonly maxAge: number;
  private readonly versions: string[];
  private readonly identity: Record<string, unknown>;
  private readonly remotes: ServerCardRemote[] | undefined;
  private readonly catalog: { identifier: string; others: AiCatalogEntry[] } | undefined;
  /** ETags by body: a card differs only by the URL it is asked at. */
  private readonly etags = new Map<string, string>();

  constructor(
    private readonly options: ServerCardOptions,
    info: ServerDescription['info'],
  ) {
    const where = 'McpServer: serverCard';
    const fail = (message: string): never => {
      throw new DefinitionError('INVALID_OPTION', `${where}: ${message}`);
    };
    if (typeof options !== 'object' || options === null) fail('give true or an object of options');
    const { name, version, title, description, websiteUrl, icons } = info;
    // The card's name is serverInfo.name: the two must agree, so the server's name takes the card's form.
    if (!(NAME.test(name) && name.length >= 3 && name.length <= 200)) fail(`the server's name must be in reverse-DNS form with one slash ("com.example/weather", 3-200 characters): clients compare it with serverInfo.name; not ${JSON.stringify(name)}`);
    if (version.length > 255 || VERSION_RANGE.test(version)) fail(`the version must be one version, not a range: ${JSON.stringify(version)}`);
    if (typeof description !== 'string' || description.length < 1 || description.length > 100) fail('a card needs the server\'s description, 1-100 characters (new McpServer({ description }))');
    if (title !== undefined && (title.length < 1 || title.length > 100)) fail('the title must be 1-100 characters');
    if (websiteUrl !== undefined && !isUrl(websiteUrl)) fail(`websiteUrl is no URL: ${JSON.stringify(websiteUrl)}`);
    for (const icon of icons ?? []) if (!isUrl(icon.src)) fail(`an icon's src is no URI: ${JSON.stringify(icon.src.slice(0, 80))}`);
    const maxAge = options.maxAgeSeconds ?? 3600;
    if (!(Number.isInteger(maxAge) && maxAge >= 0)) fail(`maxAgeSeconds must be an integer >= 0, not ${String(maxAge)}`);
    this.maxAge = maxAge;
    if (options.url !== undefined && !(REMOTE_URL.test(options.url) && isUrl(options.url))) fail(`url must be the endpoint's http(s) URL, not ${JSON.stringify(options.url)}`);
    if (options.remotes !== undefined) {
      if (!Array.isArray(options.remotes)) fail('remotes must be a list');
      for (const remote of options.remotes) {
        if (remote?.type !== 'streamable-http' && remote?.type !== 'sse') fail('a remote\'s type is "streamable-http" or "sse"');
        if (typeof remote.url !== 'string' || !REMOTE_URL.test(remote.url)) fail(`a remote's url starts with http://, https:// or a {variable}: ${JSON.stringify(remote.url)}`);
      }
    }
    const repository = options.repository;
    if (repository !== undefined && !(typeof repository.source === 'string' && isUrl(repository.url))) fail('repository needs a source ("github") and a url');
    const versions = [...servedVersions()];
    this.remotes = options.remotes?.map((remote) => ({ ...remote, supportedProtocolVersions: remote.supportedProtocolVersions ?? versions }));
    this.identity = definedOf({ $schema: SERVER_CARD_SCHEMA, name, version, description, title, websiteUrl, icons: icons as Icon[] | undefined, repository, _meta: options._meta });
    this.versions = versions;
    const catalog = options.catalog;
    if (catalog === undefined || catalog === false) this.catalog = undefined;
    else {
      const chosen = catalog === true ? {} : catalog;
      const others = chosen.others ?? [];
      for (const entry of others) {
        if (typeof entry?.identifier !== 'string' || entry.identifier === '') fail('a catalog entry needs an identifier');
        if ((entry.url === undefined) === (entry.data === undefined)) fail(`the catalog entry ${entry.identifier} needs exactly one of url and data`);
      }
      this.catalog = { identifier: chosen.identifier ?? identifierOf(name), others: others.map((entry) => ({ ...entry, type: entry.type ?? SERVER_CARD_TYPE })) };
    }
  }

  /** The card as served for the endpoint at `endpoint` (an absolute URL, or undefined when unknown). */
  document(endpoint: string | undefined): Record<string, unknown> {
    const url = this.options.url ?? endpoint;
    const remotes = this.remotes ?? (url === undefined ? undefined : [{ type: 'streamable-http', url, supportedProtocolVersions: this.versions }]);
    return remotes === undefined ? { ...this.identity } : { ...this.identity, remotes };
  }

  /** The AI Catalog, with this server's card at `cardUrl`; undefined when the option is off. */
  catalogDocument(cardUrl: string | undefined): Record<string, unknown> | undefined {
    if (!this.catalog) return undefined;
    const own = this.options.url !== undefined ? cardUrlOf(this.options.url) : cardUrl;
    // Without a URL the card itself goes inline.
    const entry = own === undefined ? { identifier: this.catalog.identifier, type: SERVER_CARD_TYPE, data: this.document(undefined) } : { identifier: this.catalog.identifier, type: SERVER_CARD_TYPE, url: own };
    return { specVersion: '1.0', entries: [entry, ...this.catalog.others] };
  }

  /** The stage's answer to a request of the card or the catalog; undefined for any other path. */
  async answer(request: HttpStageRequest): Promise<HttpStageReply | undefined> {
    const path = request.pathname;
    const endpointPath = request.endpointPath;
    const isCard = endpointPath === undefined ? path.endsWith(CARD_SUFFIX) : path === `${endpointPath === '/' ? '' : endpointPath}${CARD_SUFFIX}`;
    const isCatalog = this.catalog !== undefined && path === CATALOG_PATH;
    if (!isCard && !isCatalog) return undefined;
    const method = request.method;
    if (method === 'OPTIONS') return { status: 204, headers: { ...CORS, 'access-control-max-age': '86400' } };
    if (method !== 'GET' && method !== 'HEAD') return { status: 405, headers: { ...CORS, allow: 'GET, HEAD, OPTIONS' } };
    const origin = originOf(request);
    const mcpPath = isCard ? path.slice(0, -CARD_SUFFIX.length) || '/' : (endpointPath ?? '/');
    const endpoint = origin === undefined ? undefined : `${origin}${mcpPath}`;
    const [type, document] = isCard
      ? [SERVER_CARD_TYPE, this.document(endpoint)]
      : [AI_CATALOG_TYPE, this.catalogDocument(endpoint === undefined ? undefined : cardUrlOf(endpoint))!];
    const body = JSON.stringify(document);
    const etag = await this.etagOf(body);
    const headers = { ...CORS, 'cache-control': `public, max-age=${this.maxAge}`, etag };
    if (matches(request.headers.get('if-none-match'), etag)) return { status: 304, headers };
    return { status: 200, headers: { ...headers, 'content-type': type }, body: method === 'HEAD' ? undefined : body };
  }

  private async etagOf(body: string): Promise<string> {
    const known = this.etags.get(body);
    if (known !== undefined) return known;
    const etag = `"${(await sha256Base64url(body)).slice(0, 27)}"`;
    // A card differs by the Host it is asked at; a few are kept, not one per forged Host.
    if (this.etags.size >= 16) this.etags.clear();
    this.etags.set(body, etag);
    return etag;
  }
}

/** Open CORS: a card is public, read-only metadata (SEP-2127). */
const CORS: Readonly<Record<string, string>> = Object.freeze({
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET',
  'access-control-allow-headers': 'Content-Type, If-None-Match',
  'access-control-expose-headers': 'ETag',
});

/**
 * `core:server-card`, added when the server has the `serverCard` option: an HTTP stage before
 * the Host and Origin checks (a card is public, read from any origin), like the authentication's documents.
 */
export function serverCardPlugin(card: ServerCard): CorePlugin {
  return {
    name: 'core:server-card',
    register: (host) => host.httpStage({ name: 'core:server-card', after: 'documents', handle: (request) => card.answer(request) }),
  };
}

/** `com.example/weather` → `urn:air:example.com:mcp:weather`, the catalog's domain-anchored form. */
export function identifierOf(name: string): string {
  const [namespace, local] = name.split('/');
  return `urn:air:${namespace.split('.').reverse().join('.')}:mcp:${local}`;
}

/** Where the card of the endpoint at `endpoint` is: `<endpoint>/server-card`. */
function cardUrlOf(endpoint: string): string {
  return `${endpoint.replace(/\/$/, '')}${CARD_SUFFIX}`;
}

/** `scheme://host` of the request: its own URL's, or over Node `http://` and the Host header. */
function originOf(request: HttpStageRequest): string | undefined {
  if (/^https?:\/\//i.test(request.url)) {
    try {
      return new URL(request.url).origin;
    } catch {
      return undefined;
    }
  }
  const host = request.headers.get('host');
  return host !== null && /^[a-z0-9.\-[\]:]+$/i.test(host) ? `http://${host}` : undefined;
}

/** Whether `If-None-Match` names the ETag (weak comparison, as for GET). */
function matches(header: string | null, etag: string): boolean {
  if (header === null) return false;
  return header.split(',').some((tag) => {
    const trimmed = tag.trim();
    return trimmed === '*' || trimmed.replace(/^W\//, '') === etag;
  });
}

function isUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
}

function definedOf(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}
