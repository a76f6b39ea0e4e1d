import type { MetadataDocumentSettings } from './options';
import type { ClientDocumentStore, ClientStore } from './store/SignInStore';
import type { OAuthClient } from './clients/Client';
import { ClientMetadataError, nodeDocumentFetcher, webDocumentFetcher } from './clients/fetchers';
import type { DocumentFetcher, DocumentFetchOptions } from './clients/fetchers';
import { ClientMetadataDocuments } from './clients/metadataDocuments';

/**
 * Metadata documents resolved at once, at most: any visitor can name a URL for the server to
 * fetch, so their number in flight is capped beside each one's time and size.
 */
const MAX_RESOLVING_DOCUMENTS = 50;

/** A client id the server cannot resolve to a client, and why (safe to show). */
export class UnknownClientError extends Error {}

/**
 * Finds the client a `client_id` names: an HTTPS URL through its metadata document (when
 * those are on), anything else among the registered clients.
 */
export class ClientDirectory {
  private readonly documents: ClientMetadataDocuments | undefined;
  private resolving = 0;

  constructor(
    private readonly registered: ClientStore,
    documents: MetadataDocumentSettings | false | undefined,
    now: () => number,
    shared?: ClientDocumentStore,
  ) {
    if (documents === false) return;
    const fetchOptions: DocumentFetchOptions = {
      allowPrivateAddresses: documents?.allowPrivateAddresses ?? false,
      timeoutMs: documents?.timeoutMs ?? 5_000,
      maxBytes: documents?.maxBytes ?? 16 * 1024,
    };
    const fetcher = documents?.fetcher ?? hostFetcher(fetchOptions);
    this.documents = new ClientMetadataDocuments(fetcher, { cacheMaxSec: documents?.cacheMaxSec, maxEntries: documents?.maxEntries, now, shared });
  }

  /** Whether clients may name themselves by a metadata document's URL. */
  get acceptsMetadataDocuments(): boolean {
    return this.documents !== undefined;
  }

  /** The client; rejects with UnknownClientError saying why there is none. */
  async find(clientId: string): Promise<OAuthClient> {
    if (clientId === '') throw new UnknownClientError('the request names no client (client_id)');
    if (ClientMetadataDocuments.names(clientId)) {
      if (this.documents === undefined) throw new UnknownClientError(`this server does not accept client metadata documents, so the client ${clientId} is unknown`);
      // Only reads count against the cap: slow documents named by anyone must not lock out known clients.
      if (this.resolving >= MAX_RESOLVING_DOCUMENTS && !this.documents.remembers(clientId)) throw new UnknownClientError('the server is reading too many client metadata documents at this moment; try again shortly');
      this.resolving++;
      try {
        return await this.documents.resolve(clientId);
      } catch (error) {
        if (error instanceof ClientMetadataError) throw new UnknownClientError(`the client metadata document ${clientId} cannot be used: ${error.message}`);
        throw error;
      } finally {
        this.resolving--;
      }
    }
    const client = await this.registered.get(clientId);
    if (client === undefined) throw new UnknownClientError('the client is not registered here (or its registration expired unused)');
    return client;
  }
}

/**
 * The document fetcher of this host: on Node, one that pins the address it checked for the
 * connection; elsewhere, the platform's fetch, which checks literal addresses only.
 */
function hostFetcher(options: DocumentFetchOptions): DocumentFetcher {
  const versions = (globalThis as { process?: { versions?: Record<string, string | undefined> } }).process?.versions;
  const isNode = versions?.node !== undefined && versions.bun === undefined && !('Deno' in globalThis) && (globalThis as { navigator?: { userAgent?: string } }).navigator?.userAgent !== 'Cloudflare-Workers';
  return isNode ? nodeDocumentFetcher(options) : webDocumentFetcher(options);
}
