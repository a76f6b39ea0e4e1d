import { redirectUriRefusal, withoutControlCharacters } from './Client';
import type { OAuthClient } from './Client';
import { ClientMetadataError } from './fetchers/document';
import type { DocumentFetcher } from './fetchers/document';
import type { CheckedDocument, ClientDocumentStore } from '../store/SignInStore';

/** How long documents, and failures to get one, are remembered. */
export interface MetadataDocumentOptions {
  /** Upper bound on how long a document is kept, whatever its Cache-Control says; default 86400 s. */
  cacheMaxSec?: number;
  /** How long a document without Cache-Control max-age is kept; default 300 s. */
  cacheDefaultSec?: number;
  /** How long a failure is remembered before the document is fetched again; default 60 s. */
  negativeCacheSec?: number;
  /** At most this many client ids are remembered; default 1000. */
  maxEntries?: number;
  /** The clock, in milliseconds (tests). */
  now?: () => number;
  /** Documents checked by other replicas, consulted before fetching and told what this one checked. */
  shared?: ClientDocumentStore;
}

/** A `client_id` URL longer than this is refused before anything is fetched or kept. */
const MAX_CLIENT_ID_LENGTH = 2048;
const MAX_NAME_LENGTH = 200;
const MAX_URI_LENGTH = 2000;

type Entry = { readonly expiresAt: number } & ({ readonly client: OAuthClient } | { readonly error: ClientMetadataError });

/**
 * Clients named by a Client ID Metadata Document (draft-ietf-oauth-client-id-metadata-document):
 * the `client_id` is an https URL, and the JSON document there describes the client. Documents
 * are fetched on demand, checked, and kept as their Cache-Control allows (within bounds).
 */
export class ClientMetadataDocuments {
  readonly #fetcher: DocumentFetcher;
  readonly #cacheMaxSec: number;
  readonly #cacheDefaultSec: number;
  readonly #negativeCacheSec: number;
  readonly #maxEntries: number;
  readonly #now: () => number;
  readonly #shared: ClientDocumentStore | undefined;
  /** By client id, least recently used first. */
  readonly #entries = new Map<string, Entry>();
  /** Fetches under way, so concurrent requests for one client share one. */
  readonly #pending = new Map<string, Promise<OAuthClient>>();

  constructor(fetcher: DocumentFetcher, options: MetadataDocumentOptions = {}) {
    this.#fetcher = fetcher;
    this.#cacheMaxSec = nonNegative('cacheMaxSec', options.cacheMaxSec ?? 86_400);
    this.#cacheDefaultSec = nonNegative('cacheDefaultSec', options.cacheDefaultSec ?? 300);
    this.#negativeCacheSec = nonNegative('negativeCacheSec', options.negativeCacheSec ?? 60);
    this.#maxEntries = nonNegative('maxEntries', options.maxEntries ?? 1000);
    this.#now = options.now ?? Date.now;
    this.#shared = options.shared;
  }

  /** Whether a client_id names a metadata document: an https URL. */
  static names(clientId: string): boolean {
    return URL.canParse(clientId) && new URL(clientId).protocol === 'https:';
  }

  /** How many client ids are remembered, documents and failures alike. */
  get size(): number {
    return this.#entries.size;
  }

  /** Whether the client id is remembered (document or failure), so `resolve` answers it without a fetch. */
  remembers(clientId: string): boolean {
    const entry = this.#entries.get(clientId);
    return entry !== undefined && entry.expiresAt > this.#now();
  }

  /**
   * The client a metadata document describes; rejects with ClientMetadataError (cached briefly
   * too). Concurrent calls for one URL share one fetch.
   */
  resolve(clientId: string): Promise<OAuthClient> {
    const entry = this.#entries.get(clientId);
    if (entry !== undefined) {
      this.#entries.delete(clientId);
      if (entry.expiresAt > this.#now()) {
        this.#entries.set(clientId, entry); // most recently used now
        return 'client' in entry ? Promise.resolve(entry.client) : Promise.reject(entry.error);
      }
    }
    const pending = this.#pending.get(clientId);
    if (pending !== undefined) return pending;
    const fetching = this.#fetch(clientId).finally(() => this.#pending.delete(clientId));
    this.#pending.set(clientId, fetching);
    return fetching;
  }

  async #fetch(clientId: string): Promise<OAuthClient> {
    // A malformed id is refused without a fetch, and not kept: checking it again costs nothing.
    const url = parseClientId(clientId);
    const shared = await this.#shared?.get(clientId);
    if (shared !== undefined && shared.expiresAt > this.#now()) {
      const ttlSec = (shared.expiresAt - this.#now()) / 1000;
      if ('client' in shared) {
        this.#remember(clientId, { expiresAt: shared.expiresAt, client: shared.client }, ttlSec);
        return shared.client;
      }
      const refusal = new ClientMetadataError(shared.refusal);
      this.#remember(clientId, { expiresAt: shared.expiresAt, error: refusal }, ttlSec);
      throw refusal;
    }
    let client: OAuthClient;
    let ttlSec: number;
    try {
      const document = await this.#fetcher(url);
      client = clientOf(clientId, document.body, Math.floor(this.#now() / 1000));
      ttlSec = Math.min(document.maxAgeSec ?? this.#cacheDefaultSec, this.#cacheMaxSec);
    } catch (error) {
      const refusal = error instanceof ClientMetadataError ? error : new ClientMetadataError(`${clientId} could not be fetched`, { cause: error });
      const expiresAt = this.#now() + this.#negativeCacheSec * 1000;
      this.#remember(clientId, { expiresAt, error: refusal }, this.#negativeCacheSec);
      await this.#share(clientId, { expiresAt, refusal: refusal.message }, this.#negativeCacheSec);
      throw refusal;
    }
    const expiresAt = this.#now() + ttlSec * 1000;
    this.#remember(clientId, { expiresAt, client }, ttlSec);
    await this.#share(clientId, { expiresAt, client }, ttlSec);
    return client;
  }

  /** Tells the other replicas; a store that cannot be written costs them a fetch, not this answer. */
  async #share(clientId: string, entry: CheckedDocument, ttlSec: number): Promise<void> {
    if (this.#shared === undefined || ttlSec <= 0) return;
    try {
      await this.#shared.set(clientId, entry);
    } catch {
      // The entry stays in this replica's cache; the next replica fetches the document itself.
    }
  }

  #remember(clientId: string, entry: Entry, ttlSec: number): void {
    this.#entries.delete(clientId);
    if (ttlSec <= 0 || this.#maxEntries === 0) return;
    if (this.#entries.size >= this.#maxEntries) this.#evict();
    this.#entries.set(clientId, entry);
  }

  /**
   * Makes room for one: the expired entries if there are any, else the least recently used
   * failure, else the least recently used document. Anyone can cause failures at no cost (a
   * reserved address is refused without a connection): they must not push documents out.
   */
  #evict(): void {
    const now = this.#now();
    for (const [clientId, entry] of this.#entries) if (entry.expiresAt <= now) this.#entries.delete(clientId);
    if (this.#entries.size < this.#maxEntries) return;
    let oldest: string | undefined;
    for (const [clientId, entry] of this.#entries) {
      oldest ??= clientId;
      if ('error' in entry) {
        oldest = clientId;
        break;
      }
    }
    if (oldest !== undefined) this.#entries.delete(oldest);
  }
}

function nonNegative(name: string, value: number): number {
  if (!(value >= 0)) throw new RangeError(`${name} must be a number of at least 0, not ${value}`);
  return value;
}

/**
 * The client id as a URL, when it is one a document may be fetched from (draft §3): https, a
 * path, no fragment, no user or password, no `.` or `..` segment; also no query string (the
 * draft discourages one) and nothing the URL parser would rewrite, so one document has one id.
 */
function parseClientId(clientId: string): URL {
  const refuse = (why: string) => new ClientMetadataError(`the client_id ${clientId.length > 200 ? `${clientId.slice(0, 200)}…` : clientId} ${why}`);
  if (clientId.length > MAX_CLIENT_ID_LENGTH) throw refuse(`is longer than ${MAX_CLIENT_ID_LENGTH} characters`);
  if (!URL.canParse(clientId)) throw refuse('is not a URL');
  const url = new URL(clientId);
  if (url.protocol !== 'https:') throw refuse('is not an https URL');
  if (url.username !== '' || url.password !== '') throw refuse('carries a user name or password');
  if (clientId.includes('#')) throw refuse('has a fragment');
  if (clientId.includes('?')) throw refuse('has a query string');
  // Before the parser's normalization removes them (`%2e` is a dot too; `\` is a `/` in https URLs).
  if (/[/\\](\.|%2e){1,2}(?=[/\\]|$)/i.test(clientId.slice('https://'.length))) throw refuse('has a . or .. path segment');
  if (url.pathname === '/') throw refuse('has no path (e.g. https://example.com/client.json)');
  if (url.href !== clientId) throw refuse(`is not in normal form; it would be ${url.href}`);
  return url;
}

/** The client a fetched document describes, or why it describes none (draft §4). */
function clientOf(clientId: string, document: unknown, createdAt: number): OAuthClient {
  const refuse = (why: string) => new ClientMetadataError(`the metadata document ${clientId} ${why}`);
  if (typeof document !== 'object' || document === null || Array.isArray(document)) throw refuse('is not a JSON object');
  const metadata = document as Record<string, unknown>;

  if (metadata.client_id !== clientId) throw refuse(`names the client_id ${JSON.stringify(metadata.client_id)}, not its own URL`);

  // A document is public: nothing in it can be a secret, so no method that relies on one.
  if ('client_secret' in metadata || 'client_secret_expires_at' in metadata) throw refuse('contains a client_secret; a public document cannot hold one');
  const authMethod = metadata.token_endpoint_auth_method;
  if (authMethod !== undefined && authMethod !== 'none') {
    if (typeof authMethod === 'string' && authMethod.startsWith('client_secret_')) throw refuse(`asks for token_endpoint_auth_method ${authMethod}, a shared secret, which a public document cannot hold; use none`);
    throw refuse(`asks for token_endpoint_auth_method ${JSON.stringify(authMethod)}, which is not supported; use none`);
  }

  const redirectUris = metadata.redirect_uris;
  if (!Array.isArray(redirectUris) || redirectUris.length === 0) throw refuse('has no redirect_uris (a non-empty array)');
  for (const uri of redirectUris) {
    const refusal = redirectUriRefusal(uri);
    if (refusal !== undefined) throw refuse(`has a redirect_uri that cannot be used: ${refusal}`);
  }

  if (!includesWhenPresent(metadata.grant_types, 'authorization_code')) throw refuse('has grant_types without authorization_code');
  if (!includesWhenPresent(metadata.response_types, 'code')) throw refuse('has response_types without code');

  const name = optionalString(metadata, 'client_name', MAX_NAME_LENGTH, refuse);
  const uri = optionalString(metadata, 'client_uri', MAX_URI_LENGTH, refuse);
  // Shown as a link on the consent page: only a web address, never javascript: and its kin.
  if (uri !== undefined && !/^https?:\/\//i.test(uri)) throw refuse('has a client_uri that is not an http(s) URL');
  const displayName = name === undefined ? undefined : withoutControlCharacters(name);

  return Object.freeze({
    clientId,
    origin: 'metadata-document',
    redirectUris: Object.freeze([...(redirectUris as string[])]),
    authMethod: 'none',
    refreshes: metadata.grant_types === undefined || (metadata.grant_types as string[]).includes('refresh_token'),
    ...(displayName ? { name: displayName } : {}),
    ...(uri === undefined ? {} : { uri }),
    createdAt,
  });
}

/** Whether `list` is absent, or an array of strings holding `required`. */
function includesWhenPresent(list: unknown, required: string): boolean {
  return list === undefined || (Array.isArray(list) && list.every((item) => typeof item === 'string') && list.includes(required));
}

function optionalString(metadata: Record<string, unknown>, member: string, maxLength: number, refuse: (why: string) => Error): string | undefined {
  const value = metadata[member];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw refuse(`has a ${member} that is not a string`);
  if (value.length > maxLength) throw refuse(`has a ${member} longer than ${maxLength} characters`);
  return value;
}

