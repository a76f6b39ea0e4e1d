/** How client metadata documents are fetched, whatever the runtime. */
export interface DocumentFetchOptions {
  /** Development only: let documents be fetched from loopback/private addresses. */
  readonly allowPrivateAddresses: boolean;
  /** Resolves a host name to addresses (default: the system resolver, all addresses). Tests inject one. */
  readonly resolve?: (hostname: string) => Promise<string[]>;
  /** The whole fetch, from resolving the host to the last byte of the body. */
  readonly timeoutMs: number;
  /** The largest body accepted, in bytes. */
  readonly maxBytes: number;
  /**
   * Node only: a CA certificate (PEM) trusted beside Node's bundled roots, for tests and for
   * documents served under a private CA.
   */
  readonly ca?: string;
}

/** A fetched metadata document. */
export interface FetchedDocument {
  /** The parsed JSON body. */
  readonly body: unknown;
  /** Cache-Control's max-age; 0 for no-store/no-cache; undefined when the response has none. */
  readonly maxAgeSec: number | undefined;
}

/** Fetches the document at an https URL; rejects with a {@link ClientMetadataError}. */
export type DocumentFetcher = (url: URL) => Promise<FetchedDocument>;

/**
 * Why a client metadata document could not be had. The message says precisely why and is safe
 * to show the user and the client: it names the URL and what was wrong, never a secret.
 */
export class ClientMetadataError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ClientMetadataError';
  }
}

/** Refuses any scheme but https before a connection is made. */
export function checkHttps(url: URL): void {
  if (url.protocol !== 'https:') throw new ClientMetadataError(`${url.href} is not an https URL; metadata documents are fetched over https only`);
}

/** Refuses a response that is not a plain 200, naming its status (a 3xx is a redirect, never followed). */
export function checkStatus(url: URL, status: number): void {
  if (status >= 300 && status < 400) throw new ClientMetadataError(`${url.href} answered ${status}, a redirect; metadata documents are not fetched through redirects`);
  if (status !== 200) throw new ClientMetadataError(`${url.href} answered ${status}, not 200`);
}

/** Refuses a body that is not `application/json` (parameters such as `charset` allowed). */
export function checkContentType(url: URL, contentType: string | null | undefined): void {
  const mediaType = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (mediaType !== 'application/json') {
    throw new ClientMetadataError(`${url.href} answered with content-type ${contentType ? JSON.stringify(contentType) : '(none)'}, not application/json`);
  }
}

/** Refuses up front a body whose Content-Length is over the limit. */
export function checkContentLength(url: URL, contentLength: string | null | undefined, maxBytes: number): void {
  if (contentLength == null || !/^\d+$/.test(contentLength.trim())) return;
  if (Number(contentLength) > maxBytes) throw tooLarge(url, maxBytes);
}

export function tooLarge(url: URL, maxBytes: number): ClientMetadataError {
  return new ClientMetadataError(`${url.href} is larger than ${maxBytes} bytes`);
}

export function tooSlow(url: URL, timeoutMs: number): ClientMetadataError {
  return new ClientMetadataError(`${url.href} did not arrive within ${timeoutMs} ms`);
}

/** The body as JSON: UTF-8 (a BOM allowed, as RFC 8259 lets a parser) and well-formed. */
export function parseJsonBody(url: URL, bytes: Uint8Array): unknown {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new ClientMetadataError(`${url.href} is not UTF-8 text`);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new ClientMetadataError(`${url.href} is not valid JSON`);
  }
}

/** Cache-Control's max-age in seconds: 0 for no-store or no-cache, undefined when it says neither. */
export function maxAgeOf(cacheControl: string | null | undefined): number | undefined {
  if (!cacheControl) return undefined;
  let maxAge: number | undefined;
  for (const directive of cacheControl.split(',')) {
    const [name = '', value] = directive.split('=', 2).map((part) => part.trim().toLowerCase());
    if (name === 'no-store' || name === 'no-cache') return 0;
    if (name === 'max-age' && value !== undefined) {
      const seconds = /^"?(\d+)"?$/.exec(value)?.[1];
      // A malformed max-age is stale (RFC 9111 §4.2.1), as is a duplicate that disagrees.
      if (seconds === undefined || (maxAge !== undefined && maxAge !== Number(seconds))) return 0;
      maxAge = Number(seconds);
    }
  }
  return maxAge;
}

/** A literal IP host without the brackets a URL puts around IPv6, or undefined for a name. */
export function literalAddressOf(url: URL): string | undefined {
  const host = url.hostname;
  if (host.startsWith('[')) return host.slice(1, -1);
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(host) ? host : undefined;
}
