/** How a client made itself known to the authorization server. */
export type ClientOrigin =
  /** Its `client_id` is an HTTPS URL whose document describes it (CIMD): its host is verified. */
  | 'metadata-document'
  /** It registered itself (RFC 7591): what it says of itself is unverified. */
  | 'registered';

/** How a client proves itself at the token endpoint. */
export type ClientAuthMethod = 'none' | 'client_secret_basic' | 'client_secret_post';

/** A client the authorization server knows, from its metadata document or its registration. */
export interface OAuthClient {
  readonly clientId: string;
  readonly origin: ClientOrigin;
  /** Exact redirect URIs; a loopback `http` one matches any port (RFC 8252 §7.3). */
  readonly redirectUris: readonly string[];
  readonly authMethod: ClientAuthMethod;
  /** SHA-256 of the client secret, base64url; only for `client_secret_*` clients. */
  readonly secretHash?: string;
  /** A name for people, as the client gives it. */
  readonly name?: string;
  /** The client's home page, as it gives it. */
  readonly uri?: string;
  /** Whether it may use refresh tokens: its `grant_types` include `refresh_token`, or it named none. */
  readonly refreshes?: boolean;
  /** When it was registered (epoch seconds). */
  readonly createdAt: number;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** Whether a URL is `http` on a loopback host (RFC 8252 §7.3: any port matches). */
export function isLoopbackHttp(url: URL): boolean {
  return url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname);
}

/** Schemes no redirect may use: they run code or read files in the browser. */
const FORBIDDEN_SCHEMES = new Set(['javascript:', 'data:', 'file:', 'vbscript:', 'blob:', 'about:', 'ftp:', 'ws:', 'wss:']);

/**
 * Why a redirect URI cannot be registered, or undefined when it can: an absolute URL without
 * a fragment, `https`, `http` on a loopback host, or a private-use scheme of a native app
 * (`com.example.app:/callback`, RFC 8252 §7.1).
 */
export function redirectUriRefusal(uri: unknown): string | undefined {
  if (typeof uri !== 'string' || !URL.canParse(uri)) return `${JSON.stringify(uri)} is not an absolute URL`;
  const url = new URL(uri);
  if (url.hash !== '' || uri.includes('#')) return `${uri} has a fragment`;
  if (url.username !== '' || url.password !== '') return `${uri} carries credentials`;
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:') return isLoopbackHttp(url) ? undefined : `${uri} is http on a host that is not loopback (127.0.0.1, [::1], localhost); use https`;
  if (FORBIDDEN_SCHEMES.has(url.protocol)) return `${uri} uses the scheme ${url.protocol}, which no redirect may use`;
  return undefined;
}

/**
 * Whether `given` (an authorization or token request's `redirect_uri`) is one of the client's:
 * exactly, or, for a loopback `http` URI, exactly but for the port.
 */
export function matchesRedirectUri(client: OAuthClient, given: string): boolean {
  if (client.redirectUris.includes(given)) return true;
  if (!URL.canParse(given)) return false;
  const url = new URL(given);
  if (!isLoopbackHttp(url) || given.includes('#')) return false;
  url.port = '';
  const portless = url.href;
  return client.redirectUris.some((registered) => {
    if (!URL.canParse(registered)) return false;
    const candidate = new URL(registered);
    if (!isLoopbackHttp(candidate)) return false;
    candidate.port = '';
    return candidate.href === portless;
  });
}

/** Control characters, and the bidirectional overrides that make a name read as another. */
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** A name a client gives itself, as the consent page may show it: no control characters or direction overrides. */
export function withoutControlCharacters(name: string): string {
  return name.replace(CONTROL_CHARACTERS, '').trim();
}
